package dev.rivulet.core.credit;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The layout of a coalesced frame ({@code ControlWord.BATCH}): small messages packed back to back, each as a
 * little-endian {@code u32} length followed by its bytes (UCT's "bcopy" idea: one copy into a registered bounce
 * buffer buys one send for many messages). Shared by every backend so all of them coalesce alike.
 *
 * <pre>
 * +--------+-----------+--------+-----------+-----
 * | len u32| len bytes | len u32| len bytes | ...
 * +--------+-----------+--------+-----------+-----
 * </pre>
 */
public final class BatchFraming {

    /** Bytes of the per-message length prefix. */
    public static final int RECORD_HEADER = 4;

    private static final ValueLayout.OfInt LENGTH =
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private BatchFraming() {
    }

    /** Bytes a message of {@code length} takes inside a frame. */
    public static long recordSize(long length) {
        return RECORD_HEADER + length;
    }

    /**
     * Writes the header of a record whose {@code length} bytes were written in place after it, at {@code offset} of
     * {@code frame}; returns the offset after the record.
     */
    public static long putHeader(MemorySegment frame, long offset, int length) {
        frame.set(LENGTH, offset, length);
        return offset + RECORD_HEADER + length;
    }

    /**
     * Writes the first {@code length} bytes of {@code message} as one record at {@code offset} of {@code frame};
     * returns the offset after it.
     */
    public static long pack(MemorySegment frame, long offset, MemorySegment message, int length) {
        MemorySegment.copy(message, 0, frame, offset + RECORD_HEADER, length);
        return putHeader(frame, offset, length);
    }

    /**
     * Counts the records of a frame of {@code length} bytes, or returns -1 when it is malformed (a length running
     * past the end, a truncated prefix): a malformed frame must never be half delivered.
     */
    public static int count(MemorySegment frame, long length) {
        long off = 0;
        int n = 0;
        while (off < length) {
            if (length - off < RECORD_HEADER) {
                return -1;
            }
            long len = Integer.toUnsignedLong(frame.get(LENGTH, off));
            if (len > length - off - RECORD_HEADER) {
                return -1;
            }
            off += RECORD_HEADER + len;
            n++;
        }
        return n;
    }

    /** Receives the records of a frame, in order. */
    @FunctionalInterface
    public interface RecordSink {
        void record(MemorySegment frame, long offset, int length);
    }

    /** Calls {@code sink} for each record of a frame already validated by {@link #count}. */
    public static void unpack(MemorySegment frame, long length, RecordSink sink) {
        long off = 0;
        while (off < length) {
            int len = frame.get(LENGTH, off);
            sink.record(frame, off + RECORD_HEADER, len);
            off += RECORD_HEADER + len;
        }
    }
}
