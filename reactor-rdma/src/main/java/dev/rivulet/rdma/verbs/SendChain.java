package dev.rivulet.rdma.verbs;

import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.rdma.verbs.sys.IbvQp;
import dev.rivulet.rdma.verbs.sys.IbvSendWr;
import dev.rivulet.rdma.verbs.sys.IbvSge;
import dev.rivulet.rdma.wire.WriteTimeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static dev.rivulet.rdma.verbs.sys.VerbsConstants.IBV_SEND_SIGNALED;

/**
 * The send queue's requests as the device sees them: each {@link SendQueue} slot's work request and scatter/gather
 * entry, sliced once so that posting allocates nothing. Requests are written into their slot when the engine hands
 * them over ({@link #staged}) and posted as one chain per poll, one doorbell for a burst ({@link #post}), each with its
 * own flags plus {@code IBV_SEND_SIGNALED} where the send queue says so. Progress thread only.
 */
final class SendChain {

    private final SendQueue sq;
    private final MemorySegment qp;
    private final ProgressLoop loop;
    private final WriteTimeout timeout;
    private final MemorySegment[] wrs;
    private final MemorySegment[] sges;
    private final MemorySegment badWr;
    private final int[] baseFlags;
    private final long[] slotBytes;
    /** The failure of the last {@link #post} other than {@code ENOMEM}, or 0. */
    private int error;

    SendChain(SendQueue sq, MemorySegment qp, Arena arena, ProgressLoop loop, WriteTimeout timeout) {
        int slots = sq.capacity();
        this.sq = sq;
        this.qp = qp;
        this.loop = loop;
        this.timeout = timeout;
        this.wrs = slices(arena.allocate(IbvSendWr.LAYOUT, slots), IbvSendWr.SIZE, slots);
        this.sges = slices(arena.allocate(IbvSge.LAYOUT, slots), IbvSge.SIZE, slots);
        this.badWr = arena.allocate(ValueLayout.ADDRESS);
        this.baseFlags = new int[slots];
        this.slotBytes = new long[slots];
    }

    /** The work request of {@code slot}. */
    MemorySegment wr(int slot) {
        return wrs[slot];
    }

    /** The scatter/gather entry of {@code slot}. */
    MemorySegment sge(int slot) {
        return sges[slot];
    }

    /** The request written in {@code slot}, moving {@code bytes}, is ready to be posted with the next chain. */
    void staged(int slot, long bytes) {
        baseFlags[slot] = IbvSendWr.sendFlags(wr(slot));
        slotBytes[slot] = bytes;
    }

    /**
     * Posts every staged request as one chain. Returns the requests posted; on {@code ENOMEM} the rest stay staged
     * for the next poll, any other failure is kept for {@link #takeError}.
     */
    int post() {
        int staged = sq.staged();
        if (staged == 0) {
            return 0;
        }
        long largest = 0;
        for (int i = 0; i < staged; i++) {
            int slot = sq.stagedSlot(i);
            MemorySegment wr = wr(slot);
            IbvSendWr.setSendFlags(wr, baseFlags[slot] | (sq.signalled(i) ? IBV_SEND_SIGNALED : 0));
            IbvSendWr.setNext(wr, i + 1 < staged ? wr(sq.stagedSlot(i + 1)) : MemorySegment.NULL);
            largest = Math.max(largest, slotBytes[slot]);
        }
        int rc = IbvQp.postSend(qp, wr(sq.stagedSlot(0)), badWr);
        long dueBy = timeout.dueBy(loop.coarseNanos(), largest);
        if (rc == 0) {
            sq.markPosted(staged, dueBy);
            return staged;
        }
        int posted = chainIndex(badWr.get(ValueLayout.ADDRESS, 0).address(), staged);
        sq.markPosted(posted, dueBy);
        if (rc != Errno.ENOMEM) {
            error = rc;
        }
        return posted;
    }

    /** The failure of the last post other than {@code ENOMEM} (an errno), or 0; cleared by the call. */
    int takeError() {
        int rc = error;
        error = 0;
        return rc;
    }

    /** The index in the staged chain of the request at {@code address} (the first one not posted). */
    private int chainIndex(long address, int staged) {
        for (int i = 0; i < staged; i++) {
            if (wr(sq.stagedSlot(i)).address() == address) {
                return i;
            }
        }
        return 0;
    }

    /** {@code count} views of {@code size} bytes each over {@code array}. */
    static MemorySegment[] slices(MemorySegment array, long size, int count) {
        MemorySegment[] s = new MemorySegment[count];
        for (int i = 0; i < count; i++) {
            s[i] = array.asSlice(size * i, size);
        }
        return s;
    }
}
