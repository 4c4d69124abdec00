package dev.rivulet.rdma.fabric;

import dev.rivulet.core.engine.AtomicOp;
import dev.rivulet.core.engine.Op;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.sys.Iovec;
import dev.rivulet.rdma.fabric.sys.FiMsgRma;
import dev.rivulet.rdma.fabric.sys.FiRmaIov;
import dev.rivulet.rdma.fabric.sys.FidEp;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static dev.rivulet.rdma.fabric.sys.FiConstants.*;

/**
 * Puts, gets and atomics of one {@link FabricWire}: {@code fi_writemsg} with {@code FI_DELIVERY_COMPLETE} (or plain
 * {@code fi_write} where the provider checks no keys), {@code fi_read}, and the atomic calls with their operands
 * and results in a registered scratch slab, one set per context slot. Each slot's {@code fi_msg_rma} and its iovecs
 * are sliced once, so posting allocates nothing. Progress thread only.
 */
final class FabricRma {

    private static final MemoryAccess MEMORY = Internals.memory();
    /** Per context slot: operand, compare and result words of an atomic, in registered memory. */
    private static final int ATOMIC_SCRATCH = 24;
    /** Per context slot: an fi_msg_rma with its iovec, rma_iov and desc, for writes posted with flags. */
    private static final long MSG_SCRATCH = 128;

    private final FabricLink link;
    private final MemoryRegion scratch;
    private final MemorySegment[] msgs;
    private final MemorySegment[] iovs;
    private final MemorySegment[] rmaIovs;
    private final MemorySegment[] descs;

    FabricRma(FabricLink link, MemoryDomain memory, Arena arena) {
        this.link = link;
        int slotCount = link.slots.capacity();
        this.scratch = memory.register(arena.allocate((long) ATOMIC_SCRATCH * slotCount, 64), Access.LOCAL);
        MemorySegment msgScratch = arena.allocate(MSG_SCRATCH * slotCount, 64);
        this.msgs = new MemorySegment[slotCount];
        this.iovs = new MemorySegment[slotCount];
        this.rmaIovs = new MemorySegment[slotCount];
        this.descs = new MemorySegment[slotCount];
        for (int i = 0; i < slotCount; i++) {
            MemorySegment m = msgScratch.asSlice(MSG_SCRATCH * i, MSG_SCRATCH);
            msgs[i] = m.asSlice(0, FiMsgRma.SIZE);
            iovs[i] = m.asSlice(FiMsgRma.SIZE, Iovec.SIZE);
            rmaIovs[i] = m.asSlice(FiMsgRma.SIZE + Iovec.SIZE, FiRmaIov.SIZE);
            descs[i] = m.asSlice(FiMsgRma.SIZE + Iovec.SIZE + FiRmaIov.SIZE, 8);
        }
    }

    /** Posts the put, get or atomic {@code op} in {@code slot}; returns what {@link FabricLink#posted} makes of it. */
    int post(Op op, int slot) {
        MemorySegment ctx = link.slots.context(slot);
        MemorySegment ep = link.ep;
        return switch (op.kind()) {
            case PUT -> link.posted(slot, link.fabric.checksRemoteKeys ? writeDeliveryComplete(op, slot, ctx)
                    : FidEp.write(ep, op.local().segment(), op.local().length(), MEMORY.descriptor(op.local().region()),
                    link.peer, op.remote().address(), op.remote().key(), ctx), "fi_writemsg");
            case GET -> link.posted(slot, FidEp.read(ep, op.local().segment(), op.local().length(),
                    MEMORY.descriptor(op.local().region()), link.peer, op.remote().address(), op.remote().key(), ctx),
                    "fi_read");
            case ATOMIC -> link.posted(slot, postAtomic(op, slot, ctx), "fi_atomic");
            default -> throw new IllegalStateException("not an RMA op: " + op.kind());
        };
    }

    /**
     * A put that completes only once the data is at the target: it makes flush mean remote completion, and it is
     * the only way the tcp provider reports a rejected key instead of dropping the data silently.
     */
    private long writeDeliveryComplete(Op op, int slot, MemorySegment ctx) {
        MemorySegment msg = msgs[slot];
        MemorySegment iov = iovs[slot];
        MemorySegment rmaIov = rmaIovs[slot];
        MemorySegment desc = descs[slot];
        Iovec.setBase(iov, op.local().segment());
        Iovec.setLength(iov, op.local().length());
        FiRmaIov.setAddr(rmaIov, op.remote().address());
        FiRmaIov.setLen(rmaIov, op.local().length());
        FiRmaIov.setKey(rmaIov, op.remote().key());
        desc.set(ValueLayout.ADDRESS, 0, MEMORY.descriptor(op.local().region()));
        FiMsgRma.setMsgIov(msg, iov);
        FiMsgRma.setDesc(msg, desc);
        FiMsgRma.setIovCount(msg, 1);
        FiMsgRma.setAddr(msg, link.peer);
        FiMsgRma.setRmaIov(msg, rmaIov);
        FiMsgRma.setRmaIovCount(msg, 1);
        FiMsgRma.setContext(msg, ctx);
        FiMsgRma.setData(msg, 0);
        return FidEp.writemsg(link.ep, msg, FI_COMPLETION | FI_DELIVERY_COMPLETE);
    }

    private long postAtomic(Op op, int slot, MemorySegment ctx) {
        MemorySegment s = scratch.segment().asSlice((long) ATOMIC_SCRATCH * slot, ATOMIC_SCRATCH);
        MemorySegment operand = s.asSlice(0, 8);
        MemorySegment compare = s.asSlice(8, 8);
        MemorySegment result = s.asSlice(16, 8);
        MemorySegment desc = MEMORY.descriptor(scratch);
        int dt = op.width() == 8 ? FI_UINT64 : FI_UINT32;
        if (op.width() == 8) {
            operand.set(ValueLayout.JAVA_LONG, 0, op.operand());
            compare.set(ValueLayout.JAVA_LONG, 0, op.compare());
        } else {
            operand.set(ValueLayout.JAVA_INT, 0, (int) op.operand());
            compare.set(ValueLayout.JAVA_INT, 0, (int) op.compare());
        }
        MemorySegment ep = link.ep;
        long peer = link.peer;
        long addr = op.remote().address();
        long key = op.remote().key();
        return switch (op.atomic()) {
            case ADD -> FidEp.atomic(ep, operand, 1, desc, peer, addr, key, dt, FI_SUM, ctx);
            case FETCH_ADD -> FidEp.fetchAtomic(ep, operand, 1, desc, result, desc, peer, addr, key, dt, FI_SUM, ctx);
            case SWAP -> FidEp.fetchAtomic(ep, operand, 1, desc, result, desc, peer, addr, key, dt, FI_ATOMIC_WRITE,
                    ctx);
            case COMPARE_SWAP -> FidEp.compareAtomic(ep, operand, 1, desc, compare, desc, result, desc, peer, addr,
                    key, dt, FI_CSWAP, ctx);
        };
    }

    /** What a completed atomic in {@code slot} found at the target (0 for an add, which fetches nothing). */
    long atomicResult(Op op, int slot) {
        if (op.atomic() == AtomicOp.ADD) {
            return 0;
        }
        long off = (long) ATOMIC_SCRATCH * slot + 16;
        return op.width() == 8 ? scratch.segment().get(ValueLayout.JAVA_LONG, off)
                : scratch.segment().get(ValueLayout.JAVA_INT, off);
    }

    /** Gives the scratch slab's registration back; the arena that holds its memory is the wire's. */
    void close() {
        scratch.close();
    }
}
