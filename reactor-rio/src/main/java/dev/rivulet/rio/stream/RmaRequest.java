package dev.rivulet.rio.stream;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * The 40 bytes that open the payload of a {@link FrameKind#PUT}, {@link FrameKind#GET} or {@link FrameKind#ATOMIC}
 * frame: the target window ({@code address}, {@code key}, {@code length}) and, for atomics, the operation, its width
 * and operands. A put's data follows it.
 */
public final class RmaRequest {

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            U64.withName("address"),
            U64.withName("key"),
            U64.withName("operand"),
            U64.withName("compare"),
            U32.withName("length"),
            ValueLayout.JAVA_BYTE.withName("atomic"),
            ValueLayout.JAVA_BYTE.withName("width"),
            MemoryLayout.paddingLayout(2)
    ).withName("rma_request");

    public static final int BYTES = (int) LAYOUT.byteSize();

    private static final VarHandle ADDRESS = LAYOUT.varHandle(groupElement("address"));
    private static final VarHandle KEY = LAYOUT.varHandle(groupElement("key"));
    private static final VarHandle OPERAND = LAYOUT.varHandle(groupElement("operand"));
    private static final VarHandle COMPARE = LAYOUT.varHandle(groupElement("compare"));
    private static final VarHandle LENGTH = LAYOUT.varHandle(groupElement("length"));
    private static final VarHandle ATOMIC = LAYOUT.varHandle(groupElement("atomic"));
    private static final VarHandle WIDTH = LAYOUT.varHandle(groupElement("width"));

    private RmaRequest() {
    }

    public static void write(MemorySegment s, long offset, long address, long key, int length, int atomic,
                             int width, long operand, long compare) {
        ADDRESS.set(s, offset, address);
        KEY.set(s, offset, key);
        OPERAND.set(s, offset, operand);
        COMPARE.set(s, offset, compare);
        LENGTH.set(s, offset, length);
        ATOMIC.set(s, offset, (byte) atomic);
        WIDTH.set(s, offset, (byte) width);
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, offset + BYTES - 2, (short) 0);
    }

    public static long address(MemorySegment s) {
        return (long) ADDRESS.get(s, 0L);
    }

    public static long key(MemorySegment s) {
        return (long) KEY.get(s, 0L);
    }

    public static long operand(MemorySegment s) {
        return (long) OPERAND.get(s, 0L);
    }

    public static long compare(MemorySegment s) {
        return (long) COMPARE.get(s, 0L);
    }

    public static long length(MemorySegment s) {
        return Integer.toUnsignedLong((int) LENGTH.get(s, 0L));
    }

    public static int atomic(MemorySegment s) {
        return (byte) ATOMIC.get(s, 0L);
    }

    public static int width(MemorySegment s) {
        return (byte) WIDTH.get(s, 0L);
    }
}
