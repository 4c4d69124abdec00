package dev.rivulet.core.local;

import dev.rivulet.core.TransportOption;

import java.util.List;

/** The options of the in-JVM {@code local} transport. */
public final class LocalOptions {

    /**
     * Work-queue slots per endpoint (default 64: smaller than the default send queue depth on purpose, so the path
     * that parks operations when the queue is full runs in ordinary use, as it does on hardware).
     */
    public static final TransportOption<Integer> NATIVE_QUEUE_DEPTH = TransportOption.integer(
            "local.nativeQueueDepth", 64, 1, 1 << 16, "work-queue slots per endpoint");

    /** Largest message (default 16 MiB). */
    public static final TransportOption<Integer> MAX_MESSAGE_SIZE = TransportOption.integer(
            "local.maxMessageSize", 16 << 20, 1, 1 << 30, "largest message in bytes");

    /**
     * Largest single put or get ({@code Capabilities.maxRmaSize}; by default the largest message,
     * {@link #MAX_MESSAGE_SIZE}). Longer ones go as
     * pieces of at most this size, as on a provider whose limit is small: lower it to run that path in tests.
     */
    public static final TransportOption<Integer> MAX_RMA_SIZE = TransportOption.integer(
            "local.maxRmaSize", 16 << 20, 1, 1 << 30, "largest single put or get in bytes");

    /** Every option of the transport. */
    public static final List<TransportOption<?>> ALL = List.of(NATIVE_QUEUE_DEPTH, MAX_MESSAGE_SIZE, MAX_RMA_SIZE);

    private LocalOptions() {
    }
}
