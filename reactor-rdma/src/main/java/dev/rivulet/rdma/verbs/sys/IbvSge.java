package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_sge} (verbs.h): one scatter/gather entry, a local buffer named by its address, length and the
 * {@code lkey} of a registration covering it.
 */
public final class IbvSge {

    /** {@code struct ibv_sge}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("addr"),
            JAVA_INT.withName("length"),
            JAVA_INT.withName("lkey"))
            .withName("ibv_sge");

    /** {@code sizeof(struct ibv_sge)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long ADDR = Downcalls.offset(LAYOUT, "addr");
    private static final long LENGTH = Downcalls.offset(LAYOUT, "length");
    private static final long LKEY = Downcalls.offset(LAYOUT, "lkey");

    private IbvSge() {
    }

    /** Fills the entry at {@code s}; {@code length} is a {@code uint32_t}. */
    public static void set(MemorySegment s, long addr, long length, int lkey) {
        s.set(JAVA_LONG, ADDR, addr);
        s.set(JAVA_INT, LENGTH, (int) length);
        s.set(JAVA_INT, LKEY, lkey);
    }

    public static long addr(MemorySegment s) {
        return s.get(JAVA_LONG, ADDR);
    }

    public static long length(MemorySegment s) {
        return Integer.toUnsignedLong(s.get(JAVA_INT, LENGTH));
    }

    public static int lkey(MemorySegment s) {
        return s.get(JAVA_INT, LKEY);
    }
}
