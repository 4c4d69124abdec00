package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_ioc} (fabric.h): one local buffer of an atomic transfer, counted in datatype elements.
 * Owned by the caller.
 */
public final class FiIoc {

    /** {@code struct fi_ioc}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("addr"),
            JAVA_LONG.withName("count"))
            .withName("fi_ioc");

    /** {@code sizeof(struct fi_ioc)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long ADDR = Downcalls.offset(LAYOUT, "addr");
    private static final long COUNT = Downcalls.offset(LAYOUT, "count");

    private FiIoc() {
    }

    /** A zeroed instance owned by {@code arena}. */
    public static MemorySegment allocate(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /** {@code fi_ioc.addr}. */
    public static MemorySegment addr(MemorySegment s) {
        return s.get(ADDRESS, ADDR);
    }

    /** Sets {@code fi_ioc.addr}. */
    public static void setAddr(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, ADDR, value);
    }

    /** {@code fi_ioc.count}: elements of the atomic datatype, not bytes. */
    public static long count(MemorySegment s) {
        return s.get(JAVA_LONG, COUNT);
    }

    /** Sets {@code fi_ioc.count}. */
    public static void setCount(MemorySegment s, long value) {
        s.set(JAVA_LONG, COUNT, value);
    }
}
