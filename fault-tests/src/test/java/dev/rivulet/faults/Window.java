package dev.rivulet.faults;

/**
 * The layout of the memory window {@link FaultPeer} grants each connection: {@link #RMA_SPAN} bytes that the RMA
 * scenarios write and read back, the whole first {@link #LARGE_PUT_MAX} bytes for the large put, and a 64-bit word
 * at {@link #ATOMIC_OFFSET} for atomics, past both. Byte {@code i} starts as {@link #initialByte(long)}, so a reader
 * can check what it gets before anyone wrote.
 */
final class Window {

    static final long LARGE_PUT_MAX = 16L << 20;
    static final long RMA_SPAN = 8L << 20;
    static final long ATOMIC_OFFSET = LARGE_PUT_MAX;
    static final long BYTES = LARGE_PUT_MAX + 4096;
    /** Where the pending-operation loops put and get (64 KiB each, inside the span). */
    static final long PENDING_PUT_OFFSET = 0;
    static final long PENDING_GET_OFFSET = 1L << 20;
    static final int PENDING_CHUNK = 64 << 10;

    private Window() {
    }

    static byte initialByte(long i) {
        return (byte) (i * 131 + (i >>> 11));
    }
}
