package dev.rivulet.rio.uring.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/** {@code struct io_uring_probe_op} (8 bytes): one element of {@link IoUringProbe}'s {@code ops[]}. */
public final class IoUringProbeOp {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_BYTE.withName("op"),
            JAVA_BYTE.withName("resv"),
            JAVA_SHORT.withName("flags"), // IO_URING_OP_SUPPORTED
            JAVA_INT.withName("resv2")
    ).withName("io_uring_probe_op");

    public static final long SIZE = LAYOUT.byteSize();

    private static final VarHandle OP = LAYOUT.varHandle(groupElement("op"));
    private static final VarHandle FLAGS = LAYOUT.varHandle(groupElement("flags"));

    private IoUringProbeOp() {
    }

    public static int op(MemorySegment s, long base) {
        return Byte.toUnsignedInt((byte) OP.get(s, base));
    }

    public static int flags(MemorySegment s, long base) {
        return Short.toUnsignedInt((short) FLAGS.get(s, base));
    }
}
