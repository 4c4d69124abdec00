package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct iovec} (sys/uio.h): one buffer of a vector, used by {@link FiMsg}, {@link FiMsgRma} and
 * {@link FiMrAttr}. Owned by the caller.
 */
public final class Iovec {

    /** {@code struct iovec}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("iov_base"),
            JAVA_LONG.withName("iov_len"))
            .withName("iovec");

    /** {@code sizeof(struct iovec)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long IOV_BASE = Dispatch.offset(LAYOUT, "iov_base");
    private static final long IOV_LEN = Dispatch.offset(LAYOUT, "iov_len");

    private Iovec() {
    }

    /** A zeroed instance owned by {@code arena}. */
    public static MemorySegment allocate(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /** {@code iovec.iov_base}. */
    public static MemorySegment iovBase(MemorySegment s) {
        return s.get(ADDRESS, IOV_BASE);
    }

    /** Sets {@code iovec.iov_base}. */
    public static void setIovBase(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, IOV_BASE, value);
    }

    /** {@code iovec.iov_len}. */
    public static long iovLen(MemorySegment s) {
        return s.get(JAVA_LONG, IOV_LEN);
    }

    /** Sets {@code iovec.iov_len}. */
    public static void setIovLen(MemorySegment s, long value) {
        s.set(JAVA_LONG, IOV_LEN, value);
    }
}
