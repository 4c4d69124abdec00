package dev.rivulet.rdma;

import dev.rivulet.core.TransportOption;

import java.util.List;

/**
 * The options of the ibverbs transport ({@code verbs://host:port?device=mlx5_0&port=1}). The address's query names
 * {@code device}, {@code port}, {@code gid_index} and {@code connection}; a client or server opening its own transport
 * for an address takes them from there, a transport opened directly ({@code Transports.open("verbs", config)}) from
 * these options. Queue depths are the transport's ({@code TransportConfig.sendQueueDepth} /
 * {@code receiveQueueDepth}), checked against the device's limits when it opens.
 */
public final class VerbsOptions {

    /** The RDMA device ({@code ibv_devices} lists them): {@code auto} (default) takes the first with an active port. */
    public static final TransportOption<String> DEVICE = TransportOption.text("verbs.device", "auto",
            "RDMA device name (ibv_devices lists them), or auto for the first with an active port");

    /** The device port, 1-based; 0 (default) takes the first active one. */
    public static final TransportOption<Integer> PORT = TransportOption.integer("verbs.port", 0, 0, 255,
            "device port (1-based), or 0 for the first active port");

    /**
     * {@code rdmacm} (default): queue pairs are addressed and connected by rdma_cm, which picks the device port, GID
     * and path from the IP route, as TCP would. {@code manual}: queue pair numbers, GIDs and LIDs are exchanged on the
     * bootstrap connection and the queue pairs moved to RTS by hand; needs no {@code rdma_ucm} kernel module, and
     * {@link #GID_INDEX} then chooses the RoCE GID.
     */
    public static final TransportOption<String> CONNECTION = TransportOption.choice("verbs.connection", "rdmacm",
            List.of("rdmacm", "manual"), "who connects queue pairs: rdma_cm, or the bootstrap exchange (manual)");

    /**
     * The local GID table index of a {@code manual} connection: -1 (default) takes the port's first RoCE v2 GID on
     * Ethernet and no GID (LID routing) on InfiniBand. rdma_cm chooses the GID from the route itself, so with
     * {@code rdmacm} only -1 is accepted.
     */
    public static final TransportOption<Integer> GID_INDEX = TransportOption.integer("verbs.gidIndex", -1, -1, 65535,
            "local GID index for manual connections; -1 picks RoCE v2 on Ethernet, none on InfiniBand");

    /**
     * The completion vector (interrupt) each endpoint's completion queue signals when a sleeping polling thread waits
     * for it: -1 (default) spreads polling threads over the device's vectors.
     */
    public static final TransportOption<Integer> COMP_VECTOR = TransportOption.integer("verbs.compVector", -1, -1,
            1023, "completion vector of the completion queues; -1 spreads polling threads over the device's");

    /** Completions one poll of an endpoint reaps at most (one {@code ibv_poll_cq} call): endpoints share a thread. */
    public static final TransportOption<Integer> MAX_POLL = TransportOption.integer("verbs.maxPoll", 64, 1, 4096,
            "completions one poll of an endpoint reaps at most");

    /**
     * Payloads up to this size are copied into the work request ({@code IBV_SEND_INLINE}): no DMA read of the buffer,
     * lower latency. Capped by what the device grants the queue pair ({@code max_inline_data}); 0 turns it off.
     */
    public static final TransportOption<Integer> MAX_INLINE = TransportOption.integer("verbs.maxInline", 128, 0, 4096,
            "largest payload copied into the work request (inline), capped by the device");

    /**
     * One send-queue request in this many asks for a completion ({@code IBV_SEND_SIGNALED}); a completion retires
     * every earlier request of the queue pair, which completed in order before it. The last request of every post
     * is signalled too, so nothing waits for company. 1 signals every request.
     */
    public static final TransportOption<Integer> SIGNAL_INTERVAL = TransportOption.integer("verbs.signalInterval", 16,
            1, 1024, "one send request in this many asks for a completion (selective signalling)");

    /** Size of each posted receive buffer, hence the largest message (default 64 KiB). Both peers must agree. */
    public static final TransportOption<Integer> MESSAGE_SIZE = TransportOption.integer("verbs.messageSize", 64 << 10,
            256, 1 << 30, "posted receive buffer size: the largest message; both peers must agree");

    /** Ack timeout exponent of the queue pairs: a lost packet is resent after 4.096 µs · 2^n (default 14: ~67 ms). */
    public static final TransportOption<Integer> ACK_TIMEOUT = TransportOption.integer("verbs.ackTimeout", 14, 1, 31,
            "ack timeout exponent: resend after 4.096 us * 2^n");

    /** Resends after an ack timeout before the connection counts as lost ({@code IBV_WC_RETRY_EXC_ERR}). */
    public static final TransportOption<Integer> RETRY_COUNT = TransportOption.integer("verbs.retryCount", 7, 0, 7,
            "resends after an ack timeout before the connection counts as lost");

    /** Every option of the transport. */
    public static final List<TransportOption<?>> ALL = List.of(DEVICE, PORT, CONNECTION, GID_INDEX, COMP_VECTOR,
            MAX_POLL, MAX_INLINE, SIGNAL_INTERVAL, MESSAGE_SIZE, ACK_TIMEOUT, RETRY_COUNT);

    private VerbsOptions() {
    }
}
