package dev.rivulet.faults;

import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.zip.CRC32C;

/**
 * The self-checking messages of the stream scenarios. Message {@code seq} is {@link #sizeOf(long)} bytes:
 * the sequence (8 bytes), the size (4), a payload drawn from the sequence, and a CRC32C of everything before it
 * (4). A receiver that knows only which sequence comes next can tell a lost, duplicated, reordered, truncated or
 * corrupted message from a good one.
 *
 * <p>Sizes are mostly small so that 10^6 of them fit a CI run under loss (small messages coalesce in every
 * transport): 85 % are 16 to 63 bytes, 14.8 % 64 bytes to 1 KiB, 0.2 % up to 16 KiB, and every 50,000th is 64 to
 * 256 KiB, above the io_uring copy limit and the libfabric eager size, so the large-message paths (rendezvous on
 * libfabric) are under loss too. The mean is about 135 bytes: 10^6 messages are 135.5 MB.
 */
final class StreamMessages {

    static final int HEADER = 12;
    static final int TRAILER = 4;
    static final int MIN_SIZE = HEADER + TRAILER;

    private StreamMessages() {
    }

    static int sizeOf(long seq) {
        long h = mix(seq);
        if (seq % 50_000 == 49_999) {
            return (64 << 10) + (int) ((h >>> 1) % (192 << 10));
        }
        int bucket = (int) ((h >>> 40) % 1000);
        if (bucket < 850) {
            return MIN_SIZE + (int) ((h >>> 1) % 48);
        }
        if (bucket < 998) {
            return 64 + (int) ((h >>> 1) % 960);
        }
        return 1024 + (int) ((h >>> 1) % 15_361);
    }

    /** A pooled buffer holding message {@code seq}. */
    static Buffer make(MemoryDomain memory, long seq) {
        int size = sizeOf(seq);
        Buffer b = memory.allocate(size);
        MemorySegment s = b.segment();
        s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
        s.set(ValueLayout.JAVA_INT_UNALIGNED, 8, size);
        long state = mix(seq ^ 0x5DEECE66DL);
        int end = size - TRAILER;
        int i = HEADER;
        for (; i + 8 <= end; i += 8) {
            state = mix(state);
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, i, state);
        }
        for (; i < end; i++) {
            state = mix(state);
            s.set(ValueLayout.JAVA_BYTE, i, (byte) state);
        }
        s.set(ValueLayout.JAVA_INT_UNALIGNED, end, crc(s, end));
        return b;
    }

    /**
     * What is wrong with {@code s} as message {@code expectedSeq}, or null when it is exactly that message.
     */
    static String problem(MemorySegment s, long expectedSeq) {
        long len = s.byteSize();
        if (len < MIN_SIZE) {
            return "message " + expectedSeq + " is " + len + " bytes, shorter than any message";
        }
        long seq = s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        int size = s.get(ValueLayout.JAVA_INT_UNALIGNED, 8);
        int end = (int) len - TRAILER;
        if (s.get(ValueLayout.JAVA_INT_UNALIGNED, end) != crc(s, end)) {
            return "message " + expectedSeq + " (" + len + " bytes) fails its checksum";
        }
        if (seq != expectedSeq) {
            return "sequence " + seq + " arrived where " + expectedSeq + " was expected";
        }
        if (size != len || size != sizeOf(seq)) {
            return "message " + seq + " is " + len + " bytes, says " + size + ", should be " + sizeOf(seq);
        }
        return null;
    }

    private static int crc(MemorySegment s, int length) {
        CRC32C c = new CRC32C();
        c.update(s.asSlice(0, length).asByteBuffer());
        return (int) c.getValue();
    }

    /** SplitMix64's finalizer: a cheap, well-spread function of the sequence. */
    static long mix(long z) {
        z += 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
