package dev.rivulet.core.engine;

import dev.rivulet.core.Operation;

/** Remote atomic operations (UCT's add, fetch-add, swap, compare-and-swap). */
public enum AtomicOp {
    ADD,
    FETCH_ADD,
    SWAP,
    COMPARE_SWAP;

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
}
