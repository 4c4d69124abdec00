package dev.rivulet.rdma.fabric;

import dev.rivulet.rdma.fabric.sys.FiContext2;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The {@code void *context} of every posted operation: a native slab of {@code fi_context2} slots (64 bytes, what
 * providers that demand FI_CONTEXT/FI_CONTEXT2 may scribble on), each tied to the Java object it stands for. A
 * completion's {@code op_context} maps back by address arithmetic, so reaping allocates nothing. Used by one
 * progress thread only.
 */
final class ContextSlots {

    static final byte FREE = 0;
    static final byte RECEIVE = 1;
    static final byte OPERATION = 2;
    /** Rendezvous sender: the request-to-send message in flight (owner: its small buffer). */
    static final byte RTS_SEND = 3;
    /** Rendezvous sender: the op waiting for the receiver's done word (owner: the op). */
    static final byte RNDV_WAIT = 4;
    /** Rendezvous receiver: the fi_read pulling the message (owner: the destination buffer). */
    static final byte RNDV_READ = 5;
    /** A protocol-only word of the engine (credit, close): no owner; its completion is reported as such. */
    static final byte CONTROL = 6;
    /** A rendezvous-done word this wire sends on its own: no owner, nothing to report. */
    static final byte DONE_WORD = 7;

    private final MemorySegment slab;
    private final MemorySegment[] contexts;
    private final Object[] owners;
    private final byte[] kinds;
    private final int[] free;
    private int freeCount;

    ContextSlots(Arena arena, int count) {
        this.slab = arena.allocate(FiContext2.SIZE * count, 64);
        this.contexts = new MemorySegment[count];
        this.owners = new Object[count];
        this.kinds = new byte[count];
        this.free = new int[count];
        for (int i = 0; i < count; i++) {
            free[i] = count - 1 - i;
            contexts[i] = slab.asSlice(FiContext2.SIZE * i, FiContext2.SIZE); // made once: posting allocates nothing
        }
        this.freeCount = count;
    }

    /** A free slot tied to {@code owner}, or -1 when every slot is in use (the caller answers NO_RESOURCE). */
    int acquire(byte kind, Object owner) {
        if (freeCount == 0) {
            return -1;
        }
        int slot = free[--freeCount];
        owners[slot] = owner;
        kinds[slot] = kind;
        return slot;
    }

    void release(int slot) {
        owners[slot] = null;
        kinds[slot] = FREE;
        free[freeCount++] = slot;
    }

    MemorySegment context(int slot) {
        return contexts[slot];
    }

    long address(int slot) {
        return slab.address() + FiContext2.SIZE * slot;
    }

    /** The slot a completion's {@code op_context} points at, or -1 when it is not one of ours. */
    int slotOf(long contextAddress) {
        long off = contextAddress - slab.address();
        if (off < 0 || off >= slab.byteSize() || off % FiContext2.SIZE != 0) {
            return -1;
        }
        return (int) (off / FiContext2.SIZE);
    }

    Object owner(int slot) {
        return owners[slot];
    }

    byte kind(int slot) {
        return kinds[slot];
    }

    int capacity() {
        return owners.length;
    }

    int inUse() {
        return owners.length - freeCount;
    }
}
