package dev.rivulet.rio.stream;

import java.lang.foreign.MemorySegment;

/**
 * The system layer under a {@link StreamWire}: one connected stream socket with two registered buffers, and
 * asynchronous send and receive on them. io_uring and Registered I/O each implement it; the wire above is the same.
 *
 * <p>Every method is called on the wire's progress thread. Completions go back to
 * {@link ChannelUser#onCompletion(int, int, int)} on that thread, each naming the token it was posted with; a
 * result {@code >= 0} is a byte count, a negative result is {@code -errno} (or the platform's error mapped to it).
 * Posted operations always complete, also after {@link #shutdown}; {@link #release()} is called only once none is
 * outstanding.
 */
public interface StreamChannel {

    /** Completion flag: another completion for the same send follows (a zero-copy send's notification). */
    int F_MORE = 1;
    /** Completion flag: the zero-copy notification; the kernel no longer reads the send's memory. */
    int F_NOTIF = 2;

    /** On the progress loop's thread, before anything else: binds {@code user} and starts it. */
    void attach(ChannelUser user);

    /** Where frames are staged for sending (registered with the system layer where it can). */
    MemorySegment stagingBuffer();

    /** Where the socket receives into (registered with the system layer where it can). */
    MemorySegment receiveBuffer();

    /**
     * Posts a send of {@code length} bytes at {@code offset} in {@code buffer}, which is {@link #stagingBuffer()}
     * when {@code staged}, else a pooled message buffer. Returns false when the submission queue is full (nothing
     * posted; try again after a poll). Parts are named by buffer and offset rather than as slices so that the data
     * path creates no object per write.
     */
    boolean postSend(int token, MemorySegment buffer, long offset, int length, boolean staged);

    /**
     * The most parts one {@link #postGather} write may carry; 1 where the system layer has no gather send, and the
     * wire then writes part by part.
     */
    default int maxGatherParts() {
        return 1;
    }

    /**
     * Posts one write of parts {@code [0, count)} in this order (2 &le; count &le; {@link #maxGatherParts()}), part
     * {@code i} being {@code lengths[i]} bytes at {@code offsets[i]} in {@code buffers[i]} (the staging buffer or a
     * pooled message buffer); it completes once, with the number of bytes the kernel took from the front of the
     * list. Returns false when the submission queue is full.
     */
    default boolean postGather(int token, MemorySegment[] buffers, long[] offsets, int[] lengths, int count) {
        throw new UnsupportedOperationException(provider() + " has no gather send");
    }

    /** Posts a receive into {@code into}, a slice of {@link #receiveBuffer()}; false when the queue is full. */
    boolean postReceive(int token, MemorySegment into);

    /**
     * Whether {@link #postScatterReceive} is available, so the rest of a large payload can land in its own pooled
     * buffer without a second copy. False where receives need registered memory (RIO).
     */
    default boolean scatterReceives() {
        return false;
    }

    /**
     * Posts one receive that fills {@code firstLength} bytes at {@code firstOffset} in {@code first} (the rest of a
     * payload, in a pooled message buffer) and then {@code then} (a slice of {@link #receiveBuffer()}); it completes
     * once with the total byte count. False when the queue is full.
     */
    default boolean postScatterReceive(int token, MemorySegment first, long firstOffset, int firstLength,
                                       MemorySegment then) {
        throw new UnsupportedOperationException(provider() + " has no scatter receive");
    }

    /** {@code shutdown(2)}: stop sending ({@code both = false}, after the last write) or everything. */
    void shutdown(boolean both);

    /**
     * Ends the connection at once so that the peer notices: unsent data is dropped and the socket's last close
     * resets the connection (RST) where the system can; what is posted completes as after {@code shutdown(true)}.
     */
    default void abort() {
        shutdown(true);
    }

    /** Closes the socket and frees the buffers; nothing is outstanding any more. Idempotent. */
    void release();

    /** A readable name for a negative result, e.g. {@code ECONNRESET (Connection reset by peer)}. */
    String describe(int errno);

    /** The system layer's name for messages, e.g. {@code io_uring}. */
    String provider();
}
