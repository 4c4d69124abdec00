package dev.rivulet.rio.transport.uring;

import static dev.rivulet.rio.uring.IoUringConstants.IORING_CQE_F_MORE;
import static dev.rivulet.rio.uring.IoUringConstants.IORING_CQE_F_NOTIF;

import dev.rivulet.rio.stream.StreamChannel;
import dev.rivulet.rio.stream.StreamWire;
import dev.rivulet.rio.uring.Errno;
import dev.rivulet.rio.uring.ErrnoException;
import dev.rivulet.rio.uring.IoUringSqe;
import dev.rivulet.rio.uring.LibcSockets;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One TCP socket driven through its loop's ring: the {@link StreamChannel} of io_uring. Staged frames go out with
 * {@code SEND_ZC} from the fixed staging buffer where the kernel has it (else plain {@code SEND}); large payloads
 * with plain {@code SEND} straight from the message's pooled buffer (pool slabs appear while the transport runs and
 * are not fixed buffers); receives land in the fixed receive buffer through {@code READ_FIXED}.
 */
final class UringChannel implements StreamChannel {

    private static final int PAGE = 4096;

    private final UringLoop ring;
    private final int fd;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment staging;
    private final MemorySegment receive;
    private StreamWire wire;
    private int id;
    private int stagingSlot = -1;
    private int receiveSlot = -1;
    private boolean released;
    private boolean fdClosed;

    UringChannel(UringLoop ring, int fd, int stagingBytes, int receiveBytes) {
        this.ring = ring;
        this.fd = fd;
        this.staging = arena.allocate(stagingBytes, PAGE);
        this.receive = arena.allocate(receiveBytes, PAGE);
    }

    /** Joins the ring and starts receiving; on the loop thread, before the endpoint's first operation. */
    @Override
    public void attach(StreamWire w) {
        this.wire = w;
        this.id = ring.add(this);
        this.stagingSlot = ring.registerFixed(staging);
        this.receiveSlot = ring.registerFixed(receive);
        w.start();
    }

    /** Whether both buffers are io_uring fixed buffers (for tests and diagnostics). */
    boolean registered() {
        return stagingSlot >= 0 && receiveSlot >= 0;
    }

    void onCompletion(int token, int res, int cqeFlags) {
        int flags = ((cqeFlags & IORING_CQE_F_MORE) != 0 ? F_MORE : 0)
                | ((cqeFlags & IORING_CQE_F_NOTIF) != 0 ? F_NOTIF : 0);
        wire.onCompletion(token, res, flags);
    }

    @Override
    public MemorySegment stagingBuffer() {
        return staging;
    }

    @Override
    public MemorySegment receiveBuffer() {
        return receive;
    }

    @Override
    public boolean postSend(int token, MemorySegment bytes, boolean staged) {
        IoUringSqe s = ring.sqe();
        if (s == null) {
            return false;
        }
        if (staged && stagingSlot >= 0 && ring.zeroCopy(bytes.byteSize())) {
            s.prepSendZcFixed(fd, bytes, LibcSockets.MSG_NOSIGNAL, 0, stagingSlot);
        } else {
            s.prepSend(fd, bytes, LibcSockets.MSG_NOSIGNAL);
        }
        s.userData(userData(token));
        return true;
    }

    @Override
    public boolean postReceive(int token, MemorySegment into) {
        IoUringSqe s = ring.sqe();
        if (s == null) {
            return false;
        }
        if (receiveSlot >= 0) {
            s.prepReadFixed(fd, into, 0, receiveSlot);
        } else {
            s.prepRecv(fd, into, 0);
        }
        s.userData(userData(token));
        return true;
    }

    private long userData(int token) {
        return (long) id << 32 | Integer.toUnsignedLong(token);
    }

    @Override
    public void shutdown(boolean both) {
        if (fdClosed) {
            return;
        }
        try {
            LibcSockets.shutdown(fd, both ? LibcSockets.SHUT_RDWR : LibcSockets.SHUT_WR);
        } catch (ErrnoException e) {
            // ENOTCONN: the peer is gone already, which is what shutdown wanted anyway
        }
    }

    @Override
    public void release() {
        if (released) {
            return;
        }
        released = true;
        ring.remove(id);
        ring.unregisterFixed(stagingSlot);
        ring.unregisterFixed(receiveSlot);
        closeFd();
        arena.close();
    }

    /** The transport is going away: drop the wire's buffers and the socket; memory goes after the ring. */
    void abandon() {
        if (wire != null) {
            wire.abandon();
        }
        closeFd();
    }

    void freeMemory() {
        if (!released) {
            released = true;
            arena.close();
        }
    }

    private void closeFd() {
        if (!fdClosed) {
            fdClosed = true;
            try {
                LibcSockets.close(fd);
            } catch (ErrnoException e) {
                // the descriptor is gone either way
            }
        }
    }

    @Override
    public String describe(int errno) {
        return Errno.name(errno) + " (" + Errno.describe(errno) + ")";
    }

    @Override
    public String provider() {
        return UringTransport.NAME;
    }
}
