package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_rma_iov} (fi_rma.h): one remote region of an RMA transfer. {@code addr} is the target's
 * virtual address with {@code FI_MR_VIRT_ADDR}, else the offset into the region. Owned by the caller.
 */
public final class FiRmaIov {

    /** {@code struct fi_rma_iov}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("addr"),
            JAVA_LONG.withName("len"),
            JAVA_LONG.withName("key"))
            .withName("fi_rma_iov");

    /** {@code sizeof(struct fi_rma_iov)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long ADDR = Downcalls.offset(LAYOUT, "addr");
    private static final long LEN = Downcalls.offset(LAYOUT, "len");
    private static final long KEY = Downcalls.offset(LAYOUT, "key");

    private FiRmaIov() {
    }

    /** A zeroed instance owned by {@code arena}. */
    public static MemorySegment allocate(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /** {@code fi_rma_iov.addr}. */
    public static long addr(MemorySegment s) {
        return s.get(JAVA_LONG, ADDR);
    }

    /** Sets {@code fi_rma_iov.addr}. */
    public static void setAddr(MemorySegment s, long value) {
        s.set(JAVA_LONG, ADDR, value);
    }

    /** {@code fi_rma_iov.len}. */
    public static long len(MemorySegment s) {
        return s.get(JAVA_LONG, LEN);
    }

    /** Sets {@code fi_rma_iov.len}. */
    public static void setLen(MemorySegment s, long value) {
        s.set(JAVA_LONG, LEN, value);
    }

    /** {@code fi_rma_iov.key}: the target region's {@code fi_mr_key}. */
    public static long key(MemorySegment s) {
        return s.get(JAVA_LONG, KEY);
    }

    /** Sets {@code fi_rma_iov.key}. */
    public static void setKey(MemorySegment s, long value) {
        s.set(JAVA_LONG, KEY, value);
    }
}
