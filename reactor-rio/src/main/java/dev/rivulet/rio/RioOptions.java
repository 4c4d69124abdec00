package dev.rivulet.rio;

import dev.rivulet.core.TransportOption;

import java.util.ArrayList;
import java.util.List;

/** The options of the Windows Registered I/O transport ({@code rio://host:port}). */
public final class RioOptions {

    /** The stream options ({@link StreamOptions}) under {@code rio.}. */
    public static final StreamOptions STREAM = StreamOptions.under("rio.");

    /**
     * Entries per polling thread's completion queue: every connection keeps one send and one receive outstanding,
     * so a loop serves up to half that many connections.
     */
    public static final TransportOption<Integer> COMPLETION_QUEUE_SIZE = TransportOption.integer(
            "rio.completionQueueSize", 1024, 2, 1 << 20, "entries per polling thread's completion queue");

    /** Every option of the transport. */
    public static final List<TransportOption<?>> ALL;

    static {
        List<TransportOption<?>> all = new ArrayList<>(STREAM.all());
        all.add(COMPLETION_QUEUE_SIZE);
        ALL = List.copyOf(all);
    }

    private RioOptions() {
    }
}
