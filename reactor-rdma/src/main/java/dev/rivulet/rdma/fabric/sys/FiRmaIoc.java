package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_rma_ioc} (fi_rma.h): one remote region of an atomic transfer, counted in datatype elements.
 * Owned by the caller.
 */
public final class FiRmaIoc {

    /** {@code struct fi_rma_ioc}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("addr"),
            JAVA_LONG.withName("count"),
            JAVA_LONG.withName("key"))
            .withName("fi_rma_ioc");

    /** {@code sizeof(struct fi_rma_ioc)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long ADDR = Downcalls.offset(LAYOUT, "addr");
    private static final long COUNT = Downcalls.offset(LAYOUT, "count");
    private static final long KEY = Downcalls.offset(LAYOUT, "key");

    private FiRmaIoc() {
    }

    /** A zeroed instance owned by {@code arena}. */
    public static MemorySegment allocate(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /** {@code fi_rma_ioc.addr}. */
    public static long addr(MemorySegment s) {
        return s.get(JAVA_LONG, ADDR);
    }

    /** Sets {@code fi_rma_ioc.addr}. */
    public static void setAddr(MemorySegment s, long value) {
        s.set(JAVA_LONG, ADDR, value);
    }

    /** {@code fi_rma_ioc.count}: elements of the atomic datatype, not bytes. */
    public static long count(MemorySegment s) {
        return s.get(JAVA_LONG, COUNT);
    }

    /** Sets {@code fi_rma_ioc.count}. */
    public static void setCount(MemorySegment s, long value) {
        s.set(JAVA_LONG, COUNT, value);
    }

    /** {@code fi_rma_ioc.key}. */
    public static long key(MemorySegment s) {
        return s.get(JAVA_LONG, KEY);
    }

    /** Sets {@code fi_rma_ioc.key}. */
    public static void setKey(MemorySegment s, long value) {
        s.set(JAVA_LONG, KEY, value);
    }
}
