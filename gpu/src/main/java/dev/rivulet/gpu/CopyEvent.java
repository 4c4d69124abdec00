package dev.rivulet.gpu;

/**
 * Marks the end of one asynchronous copy on a {@link CopyStream} (a CUDA event recorded after the copy). It is
 * queried, never waited on: the progress loop asks {@link #isComplete()} each cycle, so no thread blocks on a copy.
 * An event is created once and reused for copy after copy; it may be given to a new copy only once the previous one
 * was seen complete.
 */
public interface CopyEvent extends AutoCloseable {

    /**
     * Whether the copy this event was last recorded after has finished; true for an event never recorded. Never
     * blocks.
     *
     * @throws DeviceMemoryException when that copy failed (the event is then free for another copy)
     */
    boolean isComplete();

    /** Destroys the event (its copy must have been seen complete). Idempotent. */
    @Override
    void close();
}
