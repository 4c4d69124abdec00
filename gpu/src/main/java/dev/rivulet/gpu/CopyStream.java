package dev.rivulet.gpu;

import java.lang.foreign.MemorySegment;

/**
 * An in-order queue of asynchronous copies between host and device memory (a CUDA stream): copies return as soon as
 * they are queued, run one after another, and report their end through the {@link CopyEvent} given with each.
 * Host memory must be pinned ({@link DeviceMemory#pinRegion}) for a copy to run asynchronously at full speed.
 *
 * <p>Queuing a copy never blocks (for CUDA, {@code cudaMemcpyAsync} on pinned memory), so it may be called on a
 * polling thread. One thread at a time queues on a stream.
 */
public interface CopyStream extends AutoCloseable {

    /** A new event for copies of this stream (created once and reused; may block, not on a polling thread). */
    CopyEvent newEvent();

    /**
     * Queues a copy of {@code bytes} bytes from {@code source} at {@code sourceOffset} into {@code host} (from its
     * first byte), then records {@code done}.
     *
     * @throws DeviceMemoryException when the copy cannot be queued (nothing was queued then)
     */
    void copyToHost(DeviceBuffer source, long sourceOffset, MemorySegment host, long bytes, CopyEvent done);

    /**
     * Queues a copy of the first {@code bytes} bytes of {@code host} into {@code target} at {@code targetOffset},
     * then records {@code done}.
     *
     * @throws DeviceMemoryException when the copy cannot be queued (nothing was queued then)
     */
    void copyToDevice(MemorySegment host, long bytes, DeviceBuffer target, long targetOffset, CopyEvent done);

    /**
     * Queues a device-to-device copy of {@code bytes} bytes from {@code source} at {@code sourceOffset} into the
     * peer allocation {@code target} at {@code targetOffset}, then records {@code done} (for CUDA,
     * {@code cudaMemcpyAsync} device to device, or {@code cudaMemcpyPeerAsync} across devices).
     *
     * @throws DeviceMemoryException when the copy cannot be queued (nothing was queued then)
     */
    default void copyToPeer(DeviceBuffer source, long sourceOffset, PeerMapping target, long targetOffset, long bytes,
                            CopyEvent done) {
        throw new DeviceMemoryException("device-to-device copies are not supported", source.memory().kind(), 0,
                "notSupported", null);
    }

    /**
     * Queues a device-to-device copy of {@code bytes} bytes from the peer allocation {@code source} at
     * {@code sourceOffset} into {@code target} at {@code targetOffset}, then records {@code done}.
     *
     * @throws DeviceMemoryException when the copy cannot be queued (nothing was queued then)
     */
    default void copyFromPeer(PeerMapping source, long sourceOffset, DeviceBuffer target, long targetOffset,
                              long bytes, CopyEvent done) {
        throw new DeviceMemoryException("device-to-device copies are not supported", target.memory().kind(), 0,
                "notSupported", null);
    }

    /**
     * Asks the stream to run {@code listener} after each copy it completes, so that whoever polls the events may
     * sleep while copies run and be woken when one ends. Returns false when the stream cannot (CUDA would need a host
     * callback per copy, which costs more than polling the events: its pollers keep polling while copies run).
     */
    default boolean signalCompletions(Runnable listener) {
        return false;
    }

    /**
     * Releases the stream. Copies still queued run to their end first (their events stay queryable); events are
     * closed by their owners.
     */
    @Override
    void close();
}
