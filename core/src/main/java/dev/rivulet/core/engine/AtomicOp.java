package dev.rivulet.core.engine;

import dev.rivulet.core.Operation;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/** Remote atomic operations (UCT's add, fetch-add, swap, compare-and-swap). */
public enum AtomicOp {
    ADD,
    FETCH_ADD,
    SWAP,
    COMPARE_SWAP;

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    /** The capability that covers this atomic at {@code width} bytes (4 or 8). */
    public Operation operation(int width) {
        boolean w64 = width == 8;
        return switch (this) {
            case ADD -> w64 ? Operation.ATOMIC_ADD_64 : Operation.ATOMIC_ADD_32;
            case FETCH_ADD -> w64 ? Operation.ATOMIC_FETCH_ADD_64 : Operation.ATOMIC_FETCH_ADD_32;
            case SWAP -> w64 ? Operation.ATOMIC_SWAP_64 : Operation.ATOMIC_SWAP_32;
            case COMPARE_SWAP -> w64 ? Operation.ATOMIC_COMPARE_SWAP_64 : Operation.ATOMIC_COMPARE_SWAP_32;
        };
    }

    /**
     * Runs this atomic as a hardware atomic on the {@code width}-byte word (4 or 8) at {@code offset} of
     * {@code segment}, as a target whose own code executes remote atomics does: atomic with the owner's accesses and
     * with every other peer's, also across processes on a shared mapping. Returns the previous value.
     *
     * @throws IllegalArgumentException or {@link IllegalStateException} when the word is misaligned or the memory
     *                                  is gone
     */
    public long applyTo(MemorySegment segment, long offset, int width, long operand, long compare) {
        if (width == 8) {
            return switch (this) {
                case ADD, FETCH_ADD -> (long) LONG.getAndAdd(segment, offset, operand);
                case SWAP -> (long) LONG.getAndSet(segment, offset, operand);
                case COMPARE_SWAP -> (long) LONG.compareAndExchange(segment, offset, compare, operand);
            };
        }
        int v = (int) operand;
        return switch (this) {
            case ADD, FETCH_ADD -> (int) INT.getAndAdd(segment, offset, v);
            case SWAP -> (int) INT.getAndSet(segment, offset, v);
            case COMPARE_SWAP -> (int) INT.compareAndExchange(segment, offset, (int) compare, v);
        };
    }
}
