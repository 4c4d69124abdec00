package dev.rivulet.rio.shm;

import dev.rivulet.core.engine.AtomicOp;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * The remote atomics as real hardware atomics on a segment (a shared mapping or this process's own memory), so they
 * are atomic with the owner's own and with those other peers make, whichever process runs them. A misaligned word
 * is refused by the {@code VarHandle} ({@link IllegalArgumentException} or {@link IllegalStateException}).
 */
final class HardwareAtomics {

    /** The operations by their wire number. */
    static final AtomicOp[] OPS = AtomicOp.values();

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private HardwareAtomics() {
    }

    /** Runs {@code a} on the {@code width}-byte word at {@code offset} of {@code s}; returns the previous value. */
    static long apply(AtomicOp a, int width, long operand, long compare, MemorySegment s, long offset) {
        if (width == 8) {
            return switch (a) {
                case ADD, FETCH_ADD -> (long) LONG.getAndAdd(s, offset, operand);
                case SWAP -> (long) LONG.getAndSet(s, offset, operand);
                case COMPARE_SWAP -> (long) LONG.compareAndExchange(s, offset, compare, operand);
            };
        }
        int v = (int) operand;
        return switch (a) {
            case ADD, FETCH_ADD -> (int) INT.getAndAdd(s, offset, v);
            case SWAP -> (int) INT.getAndSet(s, offset, v);
            case COMPARE_SWAP -> (int) INT.compareAndExchange(s, offset, (int) compare, v);
        };
    }
}
