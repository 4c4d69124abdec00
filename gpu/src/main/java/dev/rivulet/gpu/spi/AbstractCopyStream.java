package dev.rivulet.gpu.spi;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.gpu.CopyEvent;
import dev.rivulet.gpu.CopyStream;
import dev.rivulet.gpu.DeviceBuffer;
import dev.rivulet.gpu.PeerMapping;

import java.lang.foreign.MemorySegment;

/**
 * A {@link CopyStream} of an {@link AbstractDeviceMemory}: counts its events with the memory type, refuses work once
 * closed, and checks each copy the same way before the implementation queues it natively.
 *
 * @param <E> the stream's events, all made by {@link #createEvent()}
 */
public abstract class AbstractCopyStream<E extends AbstractCopyEvent> implements CopyStream {

    private final AbstractDeviceMemory memory;
    private volatile boolean closed;

    protected AbstractCopyStream(AbstractDeviceMemory memory) {
        this.memory = memory;
    }

    /** Creates a native event for this stream's copies (may block). */
    protected abstract E createEvent();

    /** Releases the native stream once it is closed; copies already queued still run to their end. */
    protected abstract void destroy();

    @Override
    public final CopyEvent newEvent() {
        checkOpen();
        E e = createEvent();
        memory.eventCreated();
        return e;
    }

    final void eventClosed() {
        memory.eventClosed();
    }

    /**
     * Checks a copy of {@code bytes} between {@code host} (from its first byte) and {@code device} at {@code offset}
     * before it is queued: the stream is open, {@code done} is an open event of this stream, the device buffer
     * belongs to this memory type and both sides hold the bytes.
     *
     * @return {@code done} as this stream's event
     */
    protected final E checkCopy(DeviceBuffer device, long offset, MemorySegment host, long bytes, CopyEvent done) {
        E e = ownEvent(done);
        if (device.memory() != memory) {
            throw new InvalidRequestException("device buffer does not belong to " + memory);
        }
        if (offset < 0 || bytes < 0 || offset > device.length() || bytes > device.length() - offset
                || bytes > host.byteSize()) {
            throw new InvalidRequestException("copy of " + bytes + " bytes at device offset " + offset
                    + " outside device buffer of " + device.length() + " or host segment of " + host.byteSize());
        }
        return e;
    }

    /**
     * Checks a device-to-device copy of {@code bytes} between {@code device} at {@code offset} and {@code peer} at
     * {@code peerOffset} before it is queued, as {@link #checkCopy} checks one with host memory; the mapping must be
     * open.
     *
     * @return {@code done} as this stream's event
     */
    protected final E checkPeerCopy(DeviceBuffer device, long offset, PeerMapping peer, long peerOffset, long bytes,
                                    CopyEvent done) {
        E e = ownEvent(done);
        if (device.memory() != memory) {
            throw new InvalidRequestException("device buffer does not belong to " + memory);
        }
        if (!peer.isOpen()) {
            throw new ResourceClosedException("peer mapping is closed");
        }
        if (offset < 0 || bytes < 0 || offset > device.length() || bytes > device.length() - offset
                || peerOffset < 0 || peerOffset > peer.length() || bytes > peer.length() - peerOffset) {
            throw new InvalidRequestException("copy of " + bytes + " bytes at device offset " + offset
                    + " and peer offset " + peerOffset + " outside device buffer of " + device.length()
                    + " or peer mapping of " + peer.length());
        }
        return e;
    }

    /** {@code done} as this stream's event: the stream is open and the event one of its own, open. */
    private E ownEvent(CopyEvent done) {
        checkOpen();
        if (!(done instanceof AbstractCopyEvent e) || e.stream != this || e.isClosed()) {
            throw new InvalidRequestException("event does not belong to this stream");
        }
        @SuppressWarnings("unchecked") // every event whose stream is this one came from createEvent()
        E mine = (E) e;
        return mine;
    }

    protected final boolean isClosed() {
        return closed;
    }

    private void checkOpen() {
        if (closed) {
            throw new ResourceClosedException("copy stream is closed");
        }
    }

    @Override
    public final void close() {
        if (closed) {
            return;
        }
        closed = true;
        memory.streamClosed(this);
        destroy();
    }
}
