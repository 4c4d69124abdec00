package dev.rivulet.rio.stream;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The 16-byte header in front of every frame: {@code u64 tag | u32 length | u8 kind | 3 reserved}, little-endian.
 * Headers sit at arbitrary offsets of the staging and receive buffers, so the layout is unaligned.
 */
public final class FrameHeader {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN).withName("tag"),
            ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN).withName("length"),
            ValueLayout.JAVA_BYTE.withName("kind"),
            MemoryLayout.paddingLayout(3)
    ).withName("frame_header");

    public static final int BYTES = (int) LAYOUT.byteSize();

    private static final VarHandle TAG = LAYOUT.varHandle(groupElement("tag"));
    private static final VarHandle LENGTH = LAYOUT.varHandle(groupElement("length"));
    private static final VarHandle KIND = LAYOUT.varHandle(groupElement("kind"));
    private static final long RESERVED_OFFSET = LAYOUT.byteOffset(groupElement("kind")) + 1;

    private FrameHeader() {
    }

    public static void write(MemorySegment s, long offset, int kind, long tag, int length) {
        TAG.set(s, offset, tag);
        LENGTH.set(s, offset, length);
        KIND.set(s, offset, (byte) kind);
        for (int i = 0; i < 3; i++) {
            s.set(ValueLayout.JAVA_BYTE, offset + RESERVED_OFFSET + i, (byte) 0);
        }
    }

    public static long tag(MemorySegment s, long offset) {
        return (long) TAG.get(s, offset);
    }

    /** Payload length, unsigned. */
    public static long length(MemorySegment s, long offset) {
        return Integer.toUnsignedLong((int) LENGTH.get(s, offset));
    }

    public static int kind(MemorySegment s, long offset) {
        return Byte.toUnsignedInt((byte) KIND.get(s, offset));
    }

    /** Whether the three reserved bytes are zero (anything else is a malformed frame). */
    public static boolean reservedClear(MemorySegment s, long offset) {
        for (int i = 0; i < 3; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, offset + RESERVED_OFFSET + i) != 0) {
                return false;
            }
        }
        return true;
    }
}
