package dev.rivulet.conformance;

import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Test messages whose every byte is derived from a sequence number, so content can be checked byte for byte. */
public final class Messages {

    private Messages() {
    }

    /** A message of {@code size} bytes for sequence {@code seq}: the sequence in the first 8 bytes, then a pattern. */
    public static Buffer make(MemoryDomain memory, long seq, int size) {
        Buffer b = memory.allocate(size);
        fill(b.segment(), seq);
        return b;
    }

    public static void fill(MemorySegment s, long seq) {
        long n = s.byteSize();
        if (n >= 8) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, seq);
        }
        for (long i = n >= 8 ? 8 : 0; i < n; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, pattern(seq, i));
        }
    }

    /** The sequence number of a message of at least 8 bytes. */
    public static long seq(Buffer b) {
        return b.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
    }

    /** Whether {@code s} holds exactly what {@link #fill} wrote for {@code seq}. */
    public static boolean verify(MemorySegment s, long seq, int size) {
        if (s.byteSize() != size) {
            return false;
        }
        if (size >= 8 && s.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != seq) {
            return false;
        }
        for (long i = size >= 8 ? 8 : 0; i < size; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != pattern(seq, i)) {
                return false;
            }
        }
        return true;
    }

    private static byte pattern(long seq, long i) {
        return (byte) (seq * 31 + i * 7 + (i >>> 8));
    }
}
