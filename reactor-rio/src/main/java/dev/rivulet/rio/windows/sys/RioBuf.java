package dev.rivulet.rio.windows.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code RIO_BUF} (16 bytes, {@code mswsockdef.h}): a slice of one registered buffer, named by the
 * {@code RIO_BUFFERID} RIORegisterBuffer returned, plus a ULONG offset and length into it. RIOSend and
 * RIOReceive take arrays of these; the array must stay valid until the request completes.
 */
public final class RioBuf {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("BufferId"),  // RIO_BUFFERID, an opaque pointer-sized handle
            JAVA_INT.withName("Offset"),   // ULONG
            JAVA_INT.withName("Length")    // ULONG
    ).withName("RIO_BUF");

    public static final long BYTE_SIZE = LAYOUT.byteSize();

    private static final VarHandle BUFFER_ID = LAYOUT.varHandle(groupElement("BufferId"));
    private static final VarHandle OFFSET = LAYOUT.varHandle(groupElement("Offset"));
    private static final VarHandle LENGTH = LAYOUT.varHandle(groupElement("Length"));

    private RioBuf() {
    }

    /** Fills element {@code index} of a RIO_BUF array. */
    public static void set(MemorySegment array, long index, MemorySegment bufferId, int offset, int length) {
        long base = index * BYTE_SIZE;
        BUFFER_ID.set(array, base, bufferId);
        OFFSET.set(array, base, offset);
        LENGTH.set(array, base, length);
    }

    public static MemorySegment bufferId(MemorySegment array, long index) {
        return (MemorySegment) BUFFER_ID.get(array, index * BYTE_SIZE);
    }

    public static int offset(MemorySegment array, long index) {
        return (int) OFFSET.get(array, index * BYTE_SIZE);
    }

    public static int length(MemorySegment array, long index) {
        return (int) LENGTH.get(array, index * BYTE_SIZE);
    }
}
