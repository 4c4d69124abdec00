package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_qp_init_attr} (verbs.h): what {@code ibv_create_qp} / {@code rdma_create_qp} make. */
public final class IbvQpInitAttr {

    /** {@code struct ibv_qp_init_attr}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("qp_context"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            IbvQpCap.LAYOUT.withName("cap"),
            JAVA_INT.withName("qp_type"),
            JAVA_INT.withName("sq_sig_all"),
            MemoryLayout.paddingLayout(4))
            .withName("ibv_qp_init_attr");

    private static final long SEND_CQ = Downcalls.offset(LAYOUT, "send_cq");
    private static final long RECV_CQ = Downcalls.offset(LAYOUT, "recv_cq");
    private static final long CAP = Downcalls.offset(LAYOUT, "cap");
    private static final long QP_TYPE = Downcalls.offset(LAYOUT, "qp_type");
    private static final long SQ_SIG_ALL = Downcalls.offset(LAYOUT, "sq_sig_all");

    private IbvQpInitAttr() {
    }

    /** A zeroed instance owned by {@code arena}. */
    public static MemorySegment allocate(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /**
     * An RC queue pair on one completion queue for both directions, one scatter/gather entry per request, and
     * {@code sq_sig_all = 0}: only requests posted with {@code IBV_SEND_SIGNALED} produce a success completion.
     */
    public static void setRc(MemorySegment s, MemorySegment cq, int maxSendWr, int maxRecvWr, int maxInlineData) {
        s.fill((byte) 0);
        s.set(ADDRESS, SEND_CQ, cq);
        s.set(ADDRESS, RECV_CQ, cq);
        IbvQpCap.set(s, CAP, maxSendWr, maxRecvWr, 1, 1, maxInlineData);
        s.set(JAVA_INT, QP_TYPE, VerbsConstants.IBV_QPT_RC);
        s.set(JAVA_INT, SQ_SIG_ALL, 0);
    }

    /** {@code cap.max_send_wr} as the provider wrote it back. */
    public static int maxSendWr(MemorySegment s) {
        return IbvQpCap.maxSendWr(s, CAP);
    }

    /** {@code cap.max_recv_wr} as the provider wrote it back. */
    public static int maxRecvWr(MemorySegment s) {
        return IbvQpCap.maxRecvWr(s, CAP);
    }

    /** {@code cap.max_inline_data} as the provider wrote it back: the largest payload it copies at post time. */
    public static int maxInlineData(MemorySegment s) {
        return IbvQpCap.maxInlineData(s, CAP);
    }
}
