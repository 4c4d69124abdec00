package dev.rivulet.gpu.host;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.gpu.CopyDirection;
import dev.rivulet.gpu.CopyEvent;
import dev.rivulet.gpu.DeviceBuffer;
import dev.rivulet.gpu.DeviceMemoryException;
import dev.rivulet.gpu.PeerMapping;
import dev.rivulet.gpu.spi.AbstractCopyStream;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * A stand-in copy stream: one copy thread runs the queued copies in order, as a GPU's copy engine runs a stream's.
 * Queuing never blocks (a full queue is refused: a pipeline keeps at most its staging buffers' worth queued).
 *
 * <p>The copy thread parks while the queue is empty and each queued copy unparks it. Neither allocates, where a
 * blocking queue's wait allocates a node every time the thread waits, which is about once a chunk.
 */
final class StandInStream extends AbstractCopyStream<StandInEvent> {

    private static final Logger log = LoggerFactory.getLogger(StandInStream.class);
    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    private static final int QUEUE = 4096;

    private final HostMemoryStandIn owner;
    private final CopyHook hook;
    private final MpscAtomicArrayQueue<StandInEvent> queue = new MpscAtomicArrayQueue<>(QUEUE);
    private final Thread thread;
    private volatile Runnable completions = () -> { };

    StandInStream(HostMemoryStandIn owner, CopyHook hook) {
        super(owner);
        this.owner = owner;
        this.hook = hook;
        this.thread = Thread.ofPlatform().daemon().name("rivulet-standin-copy-" + SEQUENCE.incrementAndGet())
                .start(this::run);
    }

    @Override
    protected StandInEvent createEvent() {
        return new StandInEvent(this);
    }

    @Override
    public void copyToHost(DeviceBuffer source, long sourceOffset, MemorySegment host, long bytes, CopyEvent done) {
        enqueue(CopyDirection.TO_HOST, source, sourceOffset, host, bytes, done);
    }

    @Override
    public void copyToDevice(MemorySegment host, long bytes, DeviceBuffer target, long targetOffset, CopyEvent done) {
        enqueue(CopyDirection.TO_DEVICE, target, targetOffset, host, bytes, done);
    }

    @Override
    public void copyToPeer(DeviceBuffer source, long sourceOffset, PeerMapping target, long targetOffset, long bytes,
                           CopyEvent done) {
        enqueuePeer(source, sourceOffset, target, targetOffset, bytes, done, true);
    }

    @Override
    public void copyFromPeer(PeerMapping source, long sourceOffset, DeviceBuffer target, long targetOffset,
                             long bytes, CopyEvent done) {
        enqueuePeer(target, targetOffset, source, sourceOffset, bytes, done, false);
    }

    /** A device-to-device copy; the copy hook is not run for it (it hooks copies between host and device). */
    private void enqueuePeer(DeviceBuffer device, long offset, PeerMapping peer, long peerOffset, long bytes,
                             CopyEvent done, boolean toPeer) {
        StandInEvent e = checkPeerCopy(device, offset, peer, peerOffset, bytes, done);
        if (!(peer instanceof StandInPeerMapping p)) {
            throw new InvalidRequestException("not a stand-in peer mapping: " + peer);
        }
        if (e.state == StandInEvent.QUEUED) {
            throw new InvalidRequestException("event is still recording an earlier copy");
        }
        e.direction = toPeer ? CopyDirection.TO_HOST : CopyDirection.TO_DEVICE;
        e.device = ((StandInBuffer) device).memory;
        e.deviceOffset = offset;
        e.peer = p.memory;
        e.peerOffset = peerOffset;
        e.toPeer = toPeer;
        e.bytes = bytes;
        offer(e);
    }

    private void enqueue(CopyDirection direction, DeviceBuffer device, long offset, MemorySegment host, long bytes,
                         CopyEvent done) {
        StandInEvent e = checkCopy(device, offset, host, bytes, done);
        if (!owner.hostPinned(host.address(), bytes)) {
            throw new DeviceMemoryException("asynchronous copy " + direction.tag() + " with host memory at 0x"
                    + Long.toHexString(host.address()) + " that is not pinned", HostMemoryStandIn.KIND, 1,
                    "standInErrorHostMemoryNotPinned", "pin the host region first (DeviceMemory.pinRegion)");
        }
        if (e.state == StandInEvent.QUEUED) {
            throw new InvalidRequestException("event is still recording an earlier copy");
        }
        e.direction = direction;
        e.device = ((StandInBuffer) device).memory; // checkCopy saw it is this memory type's buffer
        e.deviceOffset = offset;
        e.host = host;
        e.bytes = bytes;
        offer(e);
    }

    private void offer(StandInEvent e) {
        e.state = StandInEvent.QUEUED;
        if (!queue.offer(e)) {
            e.state = StandInEvent.IDLE;
            throw new DeviceMemoryException("copy queue full", HostMemoryStandIn.KIND, 3,
                    "standInErrorQueueFull", QUEUE + " copies queued");
        }
        LockSupport.unpark(thread);
    }

    private void run() {
        for (;;) {
            StandInEvent e = queue.poll();
            if (e == null) {
                // Closed streams end once the copies queued before the close have run.
                if (isClosed() || Thread.currentThread().isInterrupted()) {
                    return;
                }
                LockSupport.park(this);
                continue;
            }
            copy(e);
            try {
                completions.run(); // after the state is published: whoever is woken sees the copy's end
            } catch (RuntimeException x) {
                log.warn("copy completion listener failed", x);
            }
        }
    }

    private void copy(StandInEvent e) {
        try {
            if (e.peer != null) {
                // Device to device: no hook (it stands for copies between host and device).
                if (e.toPeer) {
                    MemorySegment.copy(e.device, e.deviceOffset, e.peer, e.peerOffset, e.bytes);
                } else {
                    MemorySegment.copy(e.peer, e.peerOffset, e.device, e.deviceOffset, e.bytes);
                }
            } else {
                hook.beforeCopy(e.direction, e.bytes);
                if (e.direction == CopyDirection.TO_HOST) {
                    MemorySegment.copy(e.device, e.deviceOffset, e.host, 0, e.bytes);
                } else {
                    MemorySegment.copy(e.host, 0, e.device, e.deviceOffset, e.bytes);
                }
            }
            end(e, null);
        } catch (DeviceMemoryException failed) {
            end(e, failed);
        } catch (RuntimeException | Error unexpected) {
            log.error("stand-in copy failed", unexpected);
            end(e, new DeviceMemoryException("copy failed: " + unexpected, HostMemoryStandIn.KIND, 999,
                    "standInErrorUnknown", String.valueOf(unexpected.getMessage())));
        }
    }

    private static void end(StandInEvent e, DeviceMemoryException failed) {
        e.device = null;
        e.host = null;
        e.peer = null;
        e.error = failed;
        e.state = failed == null ? StandInEvent.DONE : StandInEvent.FAILED;
    }

    /** The copy thread runs {@code listener} after each copy, so a poller may sleep meanwhile. */
    @Override
    public boolean signalCompletions(Runnable listener) {
        completions = listener;
        return true;
    }

    @Override
    protected void destroy() {
        // The copies already queued still run (their memory is held by transfers until their events are seen);
        // the thread ends after them.
        LockSupport.unpark(thread);
    }
}
