package dev.rivulet.rio.stream;

import java.lang.foreign.MemorySegment;

/**
 * The system layer under a {@link StreamWire}: one connected stream socket with two registered buffers, and
 * asynchronous send and receive on them. io_uring and Registered I/O each implement it; the wire above is the same.
 *
 * <p>Every method is called on the wire's progress thread. Completions go back to
 * {@link StreamWire#onCompletion(int, int, int)} on that thread, each naming the token it was posted with; a
 * result {@code >= 0} is a byte count, a negative result is {@code -errno} (or the platform's error mapped to it).
 * Posted operations always complete, also after {@link #shutdown}; {@link #release()} is called only once none is
 * outstanding.
 */
public interface StreamChannel {

    /** Completion flag: another completion for the same send follows (a zero-copy send's notification). */
    int F_MORE = 1;
    /** Completion flag: the zero-copy notification; the kernel no longer reads the send's memory. */
    int F_NOTIF = 2;

    /** On the progress loop's thread, before anything else: binds {@code wire} and starts receiving. */
    void attach(StreamWire wire);

    /** Where frames are staged for sending (registered with the system layer where it can). */
    MemorySegment stagingBuffer();

    /** Where the socket receives into (registered with the system layer where it can). */
    MemorySegment receiveBuffer();

    /**
     * Posts a send of {@code bytes}, which lie in {@link #stagingBuffer()} when {@code staged}, else in a pooled
     * message buffer. Returns false when the submission queue is full (nothing posted; try again after a poll).
     */
    boolean postSend(int token, MemorySegment bytes, boolean staged);

    /** Posts a receive into {@code into}, a slice of {@link #receiveBuffer()}; false when the queue is full. */
    boolean postReceive(int token, MemorySegment into);

    /** {@code shutdown(2)}: stop sending ({@code both = false}, after the last write) or everything. */
    void shutdown(boolean both);

    /** Closes the socket and frees the buffers; nothing is outstanding any more. Idempotent. */
    void release();

    /** A readable name for a negative result, e.g. {@code ECONNRESET (Connection reset by peer)}. */
    String describe(int errno);

    /** The system layer's name for messages, e.g. {@code io_uring}. */
    String provider();
}
