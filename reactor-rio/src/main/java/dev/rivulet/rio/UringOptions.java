package dev.rivulet.rio;

import dev.rivulet.core.TransportOption;

import java.util.ArrayList;
import java.util.List;

/** The options of the io_uring transport ({@code uring://host:port}). */
public final class UringOptions {

    /** The stream options ({@link StreamOptions}) under {@code uring.}. */
    public static final StreamOptions STREAM = StreamOptions.under("uring.");

    public static final TransportOption<Integer> MAX_MESSAGE_SIZE = STREAM.maxMessageSize();
    public static final TransportOption<Integer> STAGING_BYTES = STREAM.stagingBytes();
    public static final TransportOption<Integer> RECEIVE_BYTES = STREAM.receiveBytes();
    public static final TransportOption<Integer> COPY_LIMIT = STREAM.copyLimit();
    public static final TransportOption<Integer> MAX_BATCH_BYTES = STREAM.maxBatchBytes();

    /** Submission queue entries per ring (one ring per polling thread). */
    public static final TransportOption<Integer> RING_ENTRIES = TransportOption.integer("uring.ringEntries", 256, 8,
            32768, "submission queue entries per ring");

    /** Fixed buffer slots per ring: two per connection (its staging and receive buffers). */
    public static final TransportOption<Integer> FIXED_SLOTS = TransportOption.integer("uring.fixedSlots", 512, 2,
            1 << 14, "fixed buffer slots per ring, two per connection");

    /** Whether staged writes use SEND_ZC where the kernel has it. */
    public static final TransportOption<Boolean> ZERO_COPY = TransportOption.flag("uring.zeroCopy", true,
            "SEND_ZC for staged writes where the kernel has it");

    /**
     * Whether SEND_ZC is used to a peer on this host too. Loopback delivery cannot leave the sender's pages in
     * place: the kernel pins them, then copies them into fresh pages anyway ({@code skb_copy_ubufs}), so a
     * zero-copy send there is a plain send's copy plus the pinning, a page allocation per packet and a second
     * completion. Off by default; tests turn it on to run the zero-copy path over loopback.
     */
    public static final TransportOption<Boolean> ZERO_COPY_LOOPBACK = TransportOption.flag("uring.zeroCopyLoopback",
            false, "SEND_ZC also to a peer on this host, where the kernel copies the pages anyway");

    /** The smallest staged write sent with SEND_ZC; smaller ones go out with plain SEND. */
    public static final TransportOption<Integer> ZERO_COPY_MIN_BYTES = TransportOption.integer(
            "uring.zeroCopyMinBytes", 16 << 10, 0, 1 << 30, "smallest staged write sent with SEND_ZC, bytes");

    /**
     * Whether completions are run as deferred task work (IORING_SETUP_DEFER_TASKRUN, Linux 6.1+): the kernel
     * finishes socket I/O when the polling thread next enters the ring, flagged in the ring, instead of interrupting
     * the thread for it. Fewer interruptions and system calls per message; off, the kernel interrupts the polling
     * thread to post each completion (task work signalled the classic way).
     */
    public static final TransportOption<Boolean> DEFER_TASKRUN = TransportOption.flag("uring.deferTaskrun", true,
            "run completions as deferred task work when the polling thread enters the ring (Linux 6.1+)");

    /** Every option of the transport. */
    public static final List<TransportOption<?>> ALL;

    static {
        List<TransportOption<?>> all = new ArrayList<>(STREAM.all());
        all.addAll(List.of(RING_ENTRIES, FIXED_SLOTS, ZERO_COPY, ZERO_COPY_LOOPBACK, ZERO_COPY_MIN_BYTES,
                DEFER_TASKRUN));
        ALL = List.copyOf(all);
    }

    private UringOptions() {
    }
}
