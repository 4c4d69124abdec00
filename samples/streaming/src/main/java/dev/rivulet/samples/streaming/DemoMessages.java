package dev.rivulet.samples.streaming;

import dev.rivulet.core.memory.Buffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The demo's message format: bytes 0..7 hold the sequence number (big-endian), every later byte holds one filler
 * byte derived from it, so a message that arrives shifted, truncated, duplicated, reordered or mixed with another
 * one fails {@link #verify}.
 */
public final class DemoMessages {

    private static final ValueLayout.OfLong SEQ = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong WORD = ValueLayout.JAVA_LONG_UNALIGNED;

    private DemoMessages() {
    }

    static byte filler(long seq) {
        return (byte) ((seq * 0x9E3779B97F4A7C15L) >>> 56);
    }

    /** Writes message {@code seq} into {@code buf} ({@code buf.length()} bytes, at least 8). */
    public static Buffer write(Buffer buf, long seq) {
        MemorySegment m = buf.capacitySegment();
        m.set(SEQ, 0, seq);
        int len = buf.length();
        if (len > 8) {
            m.asSlice(8, len - 8).fill(filler(seq));
        }
        return buf;
    }

    /** The sequence number of a received message, or -1 when it is shorter than 8 bytes. */
    public static long sequence(Buffer buf) {
        return buf.length() < 8 ? -1 : buf.capacitySegment().get(SEQ, 0);
    }

    /** True when {@code buf} is message {@code seq} of {@code size} bytes, every byte checked. */
    public static boolean verify(Buffer buf, long seq, int size) {
        if (buf.length() != size || sequence(buf) != seq) {
            return false;
        }
        MemorySegment m = buf.capacitySegment();
        byte f = filler(seq);
        long pattern = (f & 0xFFL) * 0x0101010101010101L;
        int i = 8;
        for (; i + 8 <= size; i += 8) {
            if (m.get(WORD, i) != pattern) {
                return false;
            }
        }
        for (; i < size; i++) {
            if (m.get(ValueLayout.JAVA_BYTE, i) != f) {
                return false;
            }
        }
        return true;
    }
}
