package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_mr} (verbs.h): a memory registration from {@link Ibverbs#regMr}. Its {@code lkey} goes into the
 * scatter/gather entries of local posts; its {@code rkey} is what a peer names in RDMA reads, writes and atomics, and
 * is valid only for the registered range and the access flags it was registered with.
 */
public final class IbvMr {

    /** {@code struct ibv_mr}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("pd"),
            ADDRESS.withName("addr"),
            JAVA_LONG.withName("length"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("lkey"),
            JAVA_INT.withName("rkey"),
            MemoryLayout.paddingLayout(4))
            .withName("ibv_mr");

    /** {@code sizeof(struct ibv_mr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long ADDR = Downcalls.offset(LAYOUT, "addr");
    private static final long LENGTH = Downcalls.offset(LAYOUT, "length");
    private static final long LKEY = Downcalls.offset(LAYOUT, "lkey");
    private static final long RKEY = Downcalls.offset(LAYOUT, "rkey");

    private IbvMr() {
    }

    /** Sizes a {@code struct ibv_mr*}; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return VerbsDispatch.sized(pointer, SIZE);
    }

    public static long addr(MemorySegment s) {
        return s.get(JAVA_LONG, ADDR);
    }

    public static long length(MemorySegment s) {
        return s.get(JAVA_LONG, LENGTH);
    }

    public static int lkey(MemorySegment s) {
        return s.get(JAVA_INT, LKEY);
    }

    public static int rkey(MemorySegment s) {
        return s.get(JAVA_INT, RKEY);
    }
}
