package dev.rivulet.rio.uring;

import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_CQE_F_MORE;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_CQE_F_NOTIF;

import dev.rivulet.core.sys.Descriptors;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.core.sys.ErrnoException;
import dev.rivulet.core.sys.Iovec;
import dev.rivulet.core.sys.LibcSockets;
import dev.rivulet.core.sys.Mappings;
import dev.rivulet.core.sys.Msghdr;
import dev.rivulet.rio.stream.ChannelUser;
import dev.rivulet.rio.stream.StreamChannel;
import dev.rivulet.rio.uring.sys.IoUringSqe;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * One TCP socket driven through its loop's ring: the {@link StreamChannel} of io_uring. Staged frames go out with
 * {@code SEND_ZC} from the fixed staging buffer where the kernel has it and the peer is on another host (else plain
 * {@code SEND}: loopback delivery copies a zero-copy send's pages anyway); large payloads
 * with plain {@code SEND} straight from the message's pooled buffer (pool slabs appear while the transport runs and
 * are not fixed buffers); several queued frames go as one gather {@code SENDMSG}; receives land in the fixed
 * receive buffer through {@code READ_FIXED}, or, while a large payload is incomplete, through a {@code RECVMSG} that
 * fills the payload's own pooled buffer first and a little of the receive buffer after it.
 */
final class UringChannel implements StreamChannel {

    private static final int PAGE = 4096;
    /** Parts per gather write: 32 frames' worth of headers and payloads (IOV_MAX is 1024). */
    static final int GATHER_PARTS = 64;

    /**
     * Sends ask for every byte ({@code MSG_WAITALL}): io_uring then retries a short write on a stream socket inside
     * the kernel when the socket buffer drains, instead of completing with a partial count that costs the loop a
     * completion and a new submission per socket-buffer's worth.
     */
    private static final int SEND_FLAGS = LibcSockets.MSG_NOSIGNAL | LibcSockets.MSG_WAITALL;

    private final UringLoop ring;
    private final int fd;
    /** Whether staged writes may go out with SEND_ZC (not to a peer on this host, where the kernel copies). */
    private final boolean zeroCopy;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment staging;
    private final MemorySegment receive;
    /** The one gather write's msghdr and iovecs (the wire has at most one write in flight per socket). */
    private final MemorySegment msghdr;
    private final MemorySegment iovecs;
    /** The one scatter receive's msghdr and its two iovecs. */
    private final MemorySegment recvMsghdr;
    private final MemorySegment recvIovecs;
    private ChannelUser wire;
    private int id;
    private int stagingSlot = -1;
    private int receiveSlot = -1;
    private boolean released;
    private boolean fdClosed;

    UringChannel(UringLoop ring, int fd, int stagingBytes, int receiveBytes, boolean zeroCopy) {
        this.ring = ring;
        this.fd = fd;
        this.zeroCopy = zeroCopy;
        // Mapped, not allocated: what a connection held goes back to the system when it closes (AnonymousMemory).
        this.staging = Mappings.anonymous(roundUp(stagingBytes), arena).asSlice(0, stagingBytes);
        this.receive = Mappings.anonymous(roundUp(receiveBytes), arena).asSlice(0, receiveBytes);
        this.msghdr = arena.allocate(Msghdr.LAYOUT);
        this.iovecs = arena.allocate(Iovec.LAYOUT, GATHER_PARTS);
        this.recvMsghdr = arena.allocate(Msghdr.LAYOUT);
        this.recvIovecs = arena.allocate(Iovec.LAYOUT, 2);
    }

    private static long roundUp(int bytes) {
        return (bytes + PAGE - 1L) & -PAGE;
    }

    /** Joins the ring and starts receiving; on the loop thread, before the endpoint's first operation. */
    @Override
    public void attach(ChannelUser w) {
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
    public boolean postSend(int token, MemorySegment buffer, long offset, int length, boolean staged) {
        IoUringSqe s = ring.sqe();
        if (s == null) {
            return false;
        }
        if (staged && zeroCopy && stagingSlot >= 0 && ring.zeroCopy(length)) {
            s.prepSendZcFixed(fd, buffer, offset, length, LibcSockets.MSG_NOSIGNAL, 0, stagingSlot);
        } else {
            s.prepSend(fd, buffer, offset, length, SEND_FLAGS);
        }
        s.userData(userData(token));
        return true;
    }

    @Override
    public int maxGatherParts() {
        return GATHER_PARTS;
    }

    /**
     * A plain {@code SENDMSG}: the kernel copies the parts, so a pooled payload is free again at the completion.
     * (SENDMSG_ZC cannot take fixed buffers, and on loopback the kernel copies zero-copy sends anyway.)
     */
    @Override
    public boolean postGather(int token, MemorySegment[] buffers, long[] offsets, int[] lengths, int count) {
        IoUringSqe s = ring.sqe();
        if (s == null) {
            return false;
        }
        for (int i = 0; i < count; i++) {
            Iovec.set(iovecs, i, buffers[i], offsets[i], lengths[i]);
        }
        Msghdr.setIov(msghdr, iovecs, count);
        s.prepSendmsg(fd, msghdr, SEND_FLAGS);
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

    @Override
    public boolean scatterReceives() {
        return true;
    }

    /** A {@code RECVMSG} with two iovecs: the payload's rest first, then the start of the receive buffer. */
    @Override
    public boolean postScatterReceive(int token, MemorySegment first, long firstOffset, int firstLength,
                                      MemorySegment then) {
        IoUringSqe s = ring.sqe();
        if (s == null) {
            return false;
        }
        Iovec.set(recvIovecs, 0, first, firstOffset, firstLength);
        Iovec.set(recvIovecs, 1, then);
        Msghdr.setIov(recvMsghdr, recvIovecs, 2);
        s.prepRecvmsg(fd, recvMsghdr, 0);
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

    /**
     * {@code SO_LINGER} 0 makes the descriptor's last close (after the ring let go of it) send RST. Runs on error
     * paths and must not stop them: whatever setting the option throws, the shutdown that ends what is posted
     * follows.
     */
    @Override
    public void abort() {
        if (fdClosed) {
            return;
        }
        try {
            LibcSockets.lingerZero(fd);
        } catch (Throwable e) {
            // the connection is gone already, or the option could not be set: the peer sees FIN instead of RST
        } finally {
            shutdown(true);
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
        if (wire != null) {
            wire.systemGone(); // the kernel no longer writes into a payload a receive was posted into
        }
        if (!released) {
            released = true;
            arena.close();
        }
    }

    private void closeFd() {
        if (!fdClosed) {
            fdClosed = true;
            try {
                Descriptors.closeOrThrow(fd);
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
