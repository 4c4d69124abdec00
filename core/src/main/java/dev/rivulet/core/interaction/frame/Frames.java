package dev.rivulet.core.interaction.frame;

import dev.rivulet.core.memory.Buffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The layout of one interaction frame, carried as one Rivulet message: a 16-byte header, the metadata, then the data.
 *
 * <pre>
 *  0  int   stream id (odd: opened by the connecting side, even: by the accepting side; 0: the connection)
 *  4  byte  {@link FrameType}
 *  5  byte  flags ({@link #NEXT}, {@link #COMPLETE}, {@link #FOLLOWS})
 *  6  short reserved, 0
 *  8  int   n: credits (REQUEST_STREAM, REQUEST_CHANNEL, REQUEST_N), an {@link ErrorCode} (ERROR), else 0
 * 12  int   metadata length in bytes
 * 16  metadata, then data up to the end of the message
 * </pre>
 *
 * Integers are little-endian. A receiver checks every length against the message before it reads.
 */
public final class Frames {

    public static final int HEADER = 16;
    /** A PAYLOAD frame carries a payload. */
    public static final int NEXT = 1;
    /** A PAYLOAD frame ends its stream (after its payload, if it carries one). */
    public static final int COMPLETE = 2;
    /**
     * More of this frame's payload follows in {@code PAYLOAD} fragments of the same stream; the last fragment has
     * this flag clear (and {@link #COMPLETE} set if the frame ends the stream). The first fragment carries the type,
     * {@code n} and all the metadata.
     */
    public static final int FOLLOWS = 4;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private Frames() {
    }

    /** Writes a header at the start of {@code frame}. */
    public static void writeHeader(MemorySegment frame, int streamId, int type, int flags, int n, int metadataLength) {
        // Two little-endian longs hold the same bytes as the six fields: two bounds checks instead of six, per frame.
        frame.set(LONG, 0, firstWord(streamId, type, flags));
        frame.set(LONG, 8, (n & 0xFFFF_FFFFL) | (long) metadataLength << 32);
    }

    /** The header's first 8 bytes as a little-endian long: stream id, type, flags, reserved. */
    private static long firstWord(int streamId, int type, int flags) {
        return (streamId & 0xFFFF_FFFFL) | (long) (type & 0xFF) << 32 | (long) (flags & 0xFF) << 40;
    }

    /*
     * The same reads on a received Buffer, through its own accessors: no segment is made per frame to read its
     * header (the caller checked the frame holds one).
     */

    public static int streamId(Buffer frame) {
        return frame.get(INT, 0);
    }

    public static int type(Buffer frame) {
        return frame.get(ValueLayout.JAVA_BYTE, 4) & 0xFF;
    }

    public static int flags(Buffer frame) {
        return frame.get(ValueLayout.JAVA_BYTE, 5) & 0xFF;
    }

    public static int n(Buffer frame) {
        return frame.get(INT, 8);
    }

    public static int metadataLength(Buffer frame) {
        return frame.get(INT, 12);
    }

    public static int streamId(MemorySegment frame) {
        return frame.get(INT, 0);
    }

    public static int type(MemorySegment frame) {
        return frame.get(ValueLayout.JAVA_BYTE, 4) & 0xFF;
    }

    public static int flags(MemorySegment frame) {
        return frame.get(ValueLayout.JAVA_BYTE, 5) & 0xFF;
    }

    public static int n(MemorySegment frame) {
        return frame.get(INT, 8);
    }

    public static int metadataLength(MemorySegment frame) {
        return frame.get(INT, 12);
    }

    /** Reads a little-endian int (metadata entries). */
    public static int getInt(MemorySegment s, long offset) {
        return s.get(INT, offset);
    }

    public static void putInt(MemorySegment s, long offset, int value) {
        s.set(INT, offset, value);
    }
}
