package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_qp_cap} (verbs.h): queue sizes of a QP. Passed in {@link IbvQpInitAttr} as the minimum wanted;
 * {@code ibv_create_qp} / {@code rdma_create_qp} write back what the provider really made (often more, and the real
 * {@code max_inline_data}).
 */
public final class IbvQpCap {

    /** {@code struct ibv_qp_cap}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("max_send_wr"),
            JAVA_INT.withName("max_recv_wr"),
            JAVA_INT.withName("max_send_sge"),
            JAVA_INT.withName("max_recv_sge"),
            JAVA_INT.withName("max_inline_data"))
            .withName("ibv_qp_cap");

    private static final long MAX_SEND_WR = Downcalls.offset(LAYOUT, "max_send_wr");
    private static final long MAX_RECV_WR = Downcalls.offset(LAYOUT, "max_recv_wr");
    private static final long MAX_SEND_SGE = Downcalls.offset(LAYOUT, "max_send_sge");
    private static final long MAX_RECV_SGE = Downcalls.offset(LAYOUT, "max_recv_sge");
    private static final long MAX_INLINE_DATA = Downcalls.offset(LAYOUT, "max_inline_data");

    private IbvQpCap() {
    }

    /** Fills the capabilities at {@code offset} of {@code s}. */
    public static void set(MemorySegment s, long offset, int maxSendWr, int maxRecvWr, int maxSendSge,
                           int maxRecvSge, int maxInlineData) {
        s.set(JAVA_INT, offset + MAX_SEND_WR, maxSendWr);
        s.set(JAVA_INT, offset + MAX_RECV_WR, maxRecvWr);
        s.set(JAVA_INT, offset + MAX_SEND_SGE, maxSendSge);
        s.set(JAVA_INT, offset + MAX_RECV_SGE, maxRecvSge);
        s.set(JAVA_INT, offset + MAX_INLINE_DATA, maxInlineData);
    }

    public static int maxSendWr(MemorySegment s, long offset) {
        return s.get(JAVA_INT, offset + MAX_SEND_WR);
    }

    public static int maxRecvWr(MemorySegment s, long offset) {
        return s.get(JAVA_INT, offset + MAX_RECV_WR);
    }

    public static int maxInlineData(MemorySegment s, long offset) {
        return s.get(JAVA_INT, offset + MAX_INLINE_DATA);
    }
}
