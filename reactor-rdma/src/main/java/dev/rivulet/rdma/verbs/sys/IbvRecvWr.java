package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_recv_wr} (verbs.h): one receive buffer offered to the peer's sends, posted with
 * {@link IbvQp#postRecv}.
 */
public final class IbvRecvWr {

    /** {@code struct ibv_recv_wr}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("wr_id"),
            ADDRESS.withName("next"),
            ADDRESS.withName("sg_list"),
            JAVA_INT.withName("num_sge"),
            MemoryLayout.paddingLayout(4))
            .withName("ibv_recv_wr");

    /** {@code sizeof(struct ibv_recv_wr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long WR_ID = Downcalls.offset(LAYOUT, "wr_id");
    private static final long NEXT = Downcalls.offset(LAYOUT, "next");
    private static final long SG_LIST = Downcalls.offset(LAYOUT, "sg_list");
    private static final long NUM_SGE = Downcalls.offset(LAYOUT, "num_sge");

    private IbvRecvWr() {
    }

    /** Fills the whole request: {@code next} chains the requests of one post, NULL ends the chain. */
    public static void set(MemorySegment s, long wrId, MemorySegment next, MemorySegment sgList, int numSge) {
        s.set(JAVA_LONG, WR_ID, wrId);
        s.set(ADDRESS, NEXT, next);
        s.set(ADDRESS, SG_LIST, sgList);
        s.set(JAVA_INT, NUM_SGE, numSge);
        s.set(JAVA_INT, NUM_SGE + 4, 0);
    }

    public static void setNext(MemorySegment s, MemorySegment next) {
        s.set(ADDRESS, NEXT, next);
    }

    public static long wrId(MemorySegment s) {
        return s.get(JAVA_LONG, WR_ID);
    }
}
