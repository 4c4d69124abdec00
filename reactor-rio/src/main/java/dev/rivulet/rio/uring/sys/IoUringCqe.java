package dev.rivulet.rio.uring.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code struct io_uring_cqe} (16 bytes; 32 with {@code IORING_SETUP_CQE32}, where {@code big_cqe[]} follows):
 * one completion. Accessors read a CQE in place inside the mapped CQ ring at {@code base}, so reaping allocates
 * nothing.
 */
public final class IoUringCqe {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("user_data"),
            JAVA_INT.withName("res"),   // result, or -errno
            JAVA_INT.withName("flags")  // IORING_CQE_F_*; upper 16 bits = buffer id with F_BUFFER
    ).withName("io_uring_cqe");

    public static final long SIZE = LAYOUT.byteSize();

    private static final VarHandle USER_DATA = LAYOUT.varHandle(groupElement("user_data"));
    private static final VarHandle RES = LAYOUT.varHandle(groupElement("res"));
    private static final VarHandle FLAGS = LAYOUT.varHandle(groupElement("flags"));

    private IoUringCqe() {
    }

    public static long userData(MemorySegment ring, long base) {
        return (long) USER_DATA.get(ring, base);
    }

    public static int res(MemorySegment ring, long base) {
        return (int) RES.get(ring, base);
    }

    public static int flags(MemorySegment ring, long base) {
        return (int) FLAGS.get(ring, base);
    }
}
