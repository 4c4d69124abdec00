package dev.rivulet.rdma.verbs;

import dev.rivulet.core.engine.AtomicOp;
import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.OpKind;
import dev.rivulet.core.engine.Wire;
import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.OperationNotSupportedException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.rdma.verbs.sys.IbvSendWr;
import dev.rivulet.rdma.verbs.sys.IbvSge;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;

import static dev.rivulet.rdma.verbs.sys.VerbsConstants.IBV_SEND_INLINE;

/**
 * Puts, gets, atomics and flushes of one {@link VerbsWire}, written into its {@link SendChain}: {@code RDMA_WRITE}
 * (inline when small), {@code RDMA_READ}, the 64-bit {@code ATOMIC_FETCH_AND_ADD} / {@code ATOMIC_CMP_AND_SWP} with the
 * previous value landing in a registered scratch word per send slot, and a flush as a signalled zero-length
 * {@code RDMA_READ}.
 *
 * <p>Verbs has no exchange: a swap is a compare-and-swap repeated, expecting the value the previous attempt found,
 * until the word held what it expected, which makes the exchange atomic at the attempt that takes (the usual
 * emulation; each attempt is one atomic at the target). Progress thread only.
 */
final class VerbsRma {

    private static final MemoryAccess MEMORY = Internals.memory();

    private final SendQueue sq;
    private final SendChain chain;
    private final int maxInline;
    private final boolean flushByRead;
    /** Each send slot's 8-byte landing place for an atomic's previous value, registered for the device to write. */
    private final MemoryRegion atomicResults;
    private final int atomicLkey;
    /** Swaps whose compare-and-swap found another value than guessed, to be tried again expecting that value. */
    private final ArrayDeque<Op> swapRetries = new ArrayDeque<>();

    VerbsRma(SendQueue sq, SendChain chain, MemoryDomain memory, Arena arena, int maxInline, boolean flushByRead) {
        this.sq = sq;
        this.chain = chain;
        this.maxInline = maxInline;
        this.flushByRead = flushByRead;
        this.atomicResults = memory.register(arena.allocate(8L * sq.capacity(), 8), Access.LOCAL);
        this.atomicLkey = VerbsDevice.lkey(MEMORY.descriptor(atomicResults));
    }

    /** Stages the put, get or atomic {@code op}; what the device cannot do fails here, before posting. */
    int post(Op op) {
        long key = op.remote().key();
        if ((key & ~0xFFFF_FFFFL) != 0) {
            // No verbs device issued it (rkeys are 32 bits): refused here, as anything the initiator can see is wrong.
            throw new RemoteAccessException(MemoryDomain.REFUSED);
        }
        if (op.kind() == OpKind.ATOMIC) {
            checkAtomic(op);
        }
        int slot = sq.reserve(VerbsWire.OPERATION, op);
        if (slot < 0) {
            return Wire.NO_RESOURCE;
        }
        MemorySegment wr = chain.wr(slot);
        int rkey = (int) key;
        long address = op.remote().address();
        switch (op.kind()) {
            case PUT -> {
                long length = op.local().length();
                int flags = length <= maxInline ? IBV_SEND_INLINE : 0;
                IbvSendWr.rdmaWrite(wr, slot, local(op, slot), length == 0 ? 0 : 1, address, rkey,
                        length == 0 ? 0 : flags);
            }
            case GET -> IbvSendWr.rdmaRead(wr, slot, local(op, slot), op.local().length() == 0 ? 0 : 1, address, rkey,
                    0);
            case ATOMIC -> {
                switch (op.atomic()) {
                    case COMPARE_SWAP -> compareSwap(slot, op, op.compare());
                    case SWAP -> {
                        op.wireTag = 0; // the first guess of the word's value; see atomicCompleted
                        compareSwap(slot, op, 0);
                    }
                    default -> {
                        // ADD is a fetch-and-add whose previous value nobody reads.
                        IbvSendWr.fetchAdd(wr, slot, resultSge(slot), address, rkey, op.operand(), 0);
                    }
                }
            }
            default -> throw new IllegalStateException("not an RMA op: " + op.kind());
        }
        chain.staged(slot, op.bytes());
        return Wire.POSTED;
    }

    /** The scatter/gather entry naming {@code op}'s local memory in {@code slot}, or NULL for zero bytes. */
    private MemorySegment local(Op op, int slot) {
        long length = op.local().length();
        if (length == 0) {
            return MemorySegment.NULL;
        }
        MemorySegment sge = chain.sge(slot);
        IbvSge.set(sge, op.local().segment().address(), length,
                VerbsDevice.lkey(MEMORY.descriptor(op.local().region())));
        return sge;
    }

    /** The scatter/gather entry naming {@code slot}'s result word. */
    private MemorySegment resultSge(int slot) {
        MemorySegment sge = chain.sge(slot);
        IbvSge.set(sge, atomicResults.address() + 8L * slot, 8, atomicLkey);
        return sge;
    }

    /** A compare-and-swap of {@code op} expecting {@code compare}, its previous value landing in the slot's word. */
    private void compareSwap(int slot, Op op, long compare) {
        IbvSendWr.compareSwap(chain.wr(slot), slot, resultSge(slot), op.remote().address(), (int) op.remote().key(),
                compare, op.operand(), 0);
    }

    /** What verbs atomics cannot do fails before posting: other widths, a misaligned target word. */
    private static void checkAtomic(Op op) {
        if (op.width() != 8) {
            throw new OperationNotSupportedException("verbs atomics are 64-bit; " + op.atomic() + " on "
                    + op.width() + " bytes is not offered");
        }
        if ((op.remote().address() & 7) != 0) {
            throw new InvalidRequestException("a 64-bit atomic needs an 8-byte aligned target, got 0x"
                    + Long.toHexString(op.remote().address()));
        }
    }

    /**
     * Stages a flush: a signalled zero-length {@code RDMA_READ}, which the responder executes after every earlier
     * request of the queue pair and whose response cannot overtake the writes before it. A zero-length read names no
     * memory, so no key is checked.
     */
    int flush(Op op) {
        if (!flushByRead) {
            return Wire.DONE; // a device without RDMA reads: completed requests are all there is to wait for
        }
        int slot = sq.reserve(VerbsWire.FLUSH, op);
        if (slot < 0) {
            return Wire.NO_RESOURCE;
        }
        IbvSendWr.rdmaRead(chain.wr(slot), slot, MemorySegment.NULL, 0, 0, 0, 0);
        chain.staged(slot, 0);
        return Wire.POSTED;
    }

    /** The atomic {@code op} in {@code slot} completed: reported, or, a swap that missed, queued to go round again. */
    void atomicCompleted(WireEvents events, int slot, Op op) {
        long value = op.atomic() != AtomicOp.ADD ? atomicResults.segment().get(ValueLayout.JAVA_LONG, 8L * slot) : 0;
        if (op.atomic() == AtomicOp.SWAP && value != op.wireTag) {
            op.wireTag = value; // the word held something else: try again expecting it
            swapRetries.addLast(op);
            return;
        }
        events.completed(op, value);
    }

    /** Whether swaps wait for another attempt. */
    boolean retrying() {
        return !swapRetries.isEmpty();
    }

    /** Stages the swaps waiting for another attempt, as far as the send queue has room. */
    void stageRetries() {
        Op op;
        while ((op = swapRetries.peekFirst()) != null) {
            int slot = sq.reserve(VerbsWire.OPERATION, op);
            if (slot < 0) {
                break;
            }
            swapRetries.pollFirst();
            compareSwap(slot, op, op.wireTag);
            chain.staged(slot, 8);
        }
    }

    /** The queue pair failed or closed: swaps waiting for another attempt fail with {@code cause}; returns how many. */
    int failRetries(WireEvents events, TransportException cause) {
        int n = 0;
        Op retry;
        while ((retry = swapRetries.pollFirst()) != null) {
            events.failed(retry, cause);
            n++;
        }
        return n;
    }

    /** Gives the result words' registration back; the arena that holds their memory is the wire's. */
    void close() {
        atomicResults.close();
    }
}
