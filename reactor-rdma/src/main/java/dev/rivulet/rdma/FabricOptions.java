package dev.rivulet.rdma;

import dev.rivulet.core.TransportOption;

import java.util.List;

/**
 * The options of the libfabric transport ({@code fabric://host:port?provider=tcp}). A client or server that opens
 * its own transport for an address takes the provider from the address; {@link #PROVIDER} is for transports opened
 * directly ({@code Transports.open("libfabric", config)}).
 */
public final class FabricOptions {

    /** The libfabric provider: {@code tcp} (default), {@code sockets}, {@code shm}, {@code verbs}, {@code efa}... */
    public static final TransportOption<String> PROVIDER = TransportOption.text("fabric.provider", "tcp",
            "libfabric provider (fi_info -l lists those installed)");

    /**
     * Size of each posted receive buffer (default 64 KiB): larger messages go by rendezvous (the receiver reads them
     * with an RMA read), smaller ones are copied once into a posted buffer.
     */
    public static final TransportOption<Integer> EAGER_SIZE = TransportOption.integer("fabric.eagerSize", 64 << 10,
            256, 1 << 24, "posted receive buffer size; larger messages go by rendezvous");

    /** Largest message (default 16 MiB). */
    public static final TransportOption<Integer> MAX_MESSAGE_SIZE = TransportOption.integer("fabric.maxMessageSize",
            16 << 20, 1, 1 << 30, "largest message in bytes");

    /**
     * {@code fd} (default): completion queues get a wait fd the polling thread sleeps on when idle; {@code none}:
     * {@code FI_WAIT_NONE} queues for deployments that busy-poll (cheaper polls; an idle thread sleeps on a timer).
     */
    public static final TransportOption<String> COMPLETION_WAIT = TransportOption.choice("fabric.completionWait", "fd",
            List.of("fd", "none"), "how an idle polling thread waits for completions");

    /**
     * The {@code fi_domain_attr.data_progress} hint: {@code provider} (default, the provider's choice),
     * {@code manual} (data moves only inside Rivulet's completion-queue reads: no provider thread) or {@code auto}.
     */
    public static final TransportOption<String> DATA_PROGRESS = TransportOption.choice("fabric.dataProgress",
            "provider", List.of("provider", "manual", "auto"), "who moves data: the provider or the polling threads");

    /** Every option of the transport. */
    public static final List<TransportOption<?>> ALL = List.of(PROVIDER, EAGER_SIZE, MAX_MESSAGE_SIZE, COMPLETION_WAIT,
            DATA_PROGRESS);

    private FabricOptions() {
    }
}
