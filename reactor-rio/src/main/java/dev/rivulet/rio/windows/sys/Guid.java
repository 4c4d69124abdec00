package dev.rivulet.rio.windows.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * {@code GUID} (16 bytes, {@code guiddef.h}): {@code Data1} (uint32), {@code Data2}, {@code Data3} (uint16), then
 * 8 bytes. The integers are stored little-endian (Windows is little-endian on every supported CPU), so the
 * in-memory bytes are not the textual form's: {@code 8509e081-...} starts {@code 81 e0 09 85}.
 */
public final class Guid {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN).withName("Data1"),
            JAVA_SHORT.withOrder(ByteOrder.LITTLE_ENDIAN).withName("Data2"),
            JAVA_SHORT.withOrder(ByteOrder.LITTLE_ENDIAN).withName("Data3"),
            MemoryLayout.sequenceLayout(8, JAVA_BYTE).withName("Data4")
    ).withName("GUID");

    /** {@code WSAID_MULTIPLE_RIO} (MSWSock.h): {8509e081-96dd-4005-b165-9e2ee8c79e3f}. */
    public static final Guid WSAID_MULTIPLE_RIO = new Guid(0x8509e081, (short) 0x96dd, (short) 0x4005,
            new byte[] {(byte) 0xb1, 0x65, (byte) 0x9e, 0x2e, (byte) 0xe8, (byte) 0xc7, (byte) 0x9e, 0x3f});

    private static final long DATA4_OFFSET = LAYOUT.byteOffset(groupElement("Data4"));
    private static final VarHandle DATA1 = LAYOUT.varHandle(groupElement("Data1"));
    private static final VarHandle DATA2 = LAYOUT.varHandle(groupElement("Data2"));
    private static final VarHandle DATA3 = LAYOUT.varHandle(groupElement("Data3"));

    private final int data1;
    private final short data2;
    private final short data3;
    private final byte[] data4;

    public Guid(int data1, short data2, short data3, byte[] data4) {
        if (data4.length != 8) {
            throw new IllegalArgumentException("Data4 has 8 bytes, got " + data4.length);
        }
        this.data1 = data1;
        this.data2 = data2;
        this.data3 = data3;
        this.data4 = data4.clone();
    }

    /** Writes the GUID's 16-byte memory image into {@code s}. */
    public void writeTo(MemorySegment s) {
        DATA1.set(s, 0L, data1);
        DATA2.set(s, 0L, data2);
        DATA3.set(s, 0L, data3);
        MemorySegment.copy(data4, 0, s, JAVA_BYTE, DATA4_OFFSET, data4.length);
    }

    /** The 16 bytes as they lie in memory (what WSAIoctl reads). */
    public byte[] toBytes() {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment s = scratch.allocate(LAYOUT);
            writeTo(s);
            return s.toArray(JAVA_BYTE);
        }
    }

    /** The registry form, e.g. {@code 8509e081-96dd-4005-b165-9e2ee8c79e3f}. */
    @Override
    public String toString() {
        HexFormat hex = HexFormat.of();
        return String.format("%08x-%04x-%04x-%s-%s", data1, data2 & 0xFFFF, data3 & 0xFFFF,
                hex.formatHex(data4, 0, 2), hex.formatHex(data4, 2, 8));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Guid g && g.data1 == data1 && g.data2 == data2 && g.data3 == data3
                && Arrays.equals(g.data4, data4);
    }

    @Override
    public int hashCode() {
        return 31 * (31 * (31 * data1 + data2) + data3) + Arrays.hashCode(data4);
    }
}
