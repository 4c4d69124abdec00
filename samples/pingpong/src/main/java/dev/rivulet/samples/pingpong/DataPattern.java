package dev.rivulet.samples.pingpong;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * fi_pingpong's {@code -c} payload: the k-th message a process sends starts at index {@code 7k mod 62} of the
 * alphabet {@code 0-9a-zA-Z} and runs on cyclically; the receiver keeps its own count of the messages it checked.
 * The counters run over the whole run, across sizes, so one lost or extra message shows up as a mismatch in every
 * later one. One instance per run, standing for the C program's two static counters.
 */
final class DataPattern {

    private static final byte[] ALPHABET =
            "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".getBytes(StandardCharsets.US_ASCII);
    private static final int SEED = 7;

    /** The alphabet repeated to {@code maxSize + 62} bytes: any message is one slice of it, copied or compared. */
    private final MemorySegment repeated;
    private int filled;
    private int checked;

    DataPattern(long maxSize) {
        byte[] bytes = new byte[Math.toIntExact(maxSize + ALPHABET.length)];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = ALPHABET[i % ALPHABET.length];
        }
        this.repeated = MemorySegment.ofArray(bytes);
    }

    /** Writes the next message's pattern into the first {@code size} bytes of {@code payload}. */
    void fill(MemorySegment payload, int size) {
        MemorySegment.copy(repeated, start(filled++), payload, 0, size);
    }

    /**
     * Checks the next received message; every call counts, a zero-byte message too, as in fi_pingpong.
     *
     * @return the offset of the first wrong byte, or -1 when all {@code size} bytes are right
     */
    long check(MemorySegment payload, int size) {
        long start = start(checked++);
        return MemorySegment.mismatch(payload, 0, size, repeated, start, start + size);
    }

    /** How many messages were checked so far (fi_pingpong's error line prints it). */
    int checkedCount() {
        return checked;
    }

    /** {@code (k * 7) % 62} with the C program's unsigned 32-bit counter arithmetic. */
    private static long start(int k) {
        return Integer.remainderUnsigned(k * SEED, ALPHABET.length);
    }
}
