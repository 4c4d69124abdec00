package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

/**
 * {@code struct ibv_qp} (verbs.h), a queue pair from {@link Ibverbs#createQp} or {@link Rdmacm#createQp}, and the
 * two calls the header defines inline on it: {@link #postSend} and {@link #postRecv}, dispatched through the
 * context's ops table and linked {@code critical} (a post writes work queue entries and rings a doorbell).
 */
public final class IbvQp {

    /** {@code struct ibv_qp}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("qp_context"),
            ADDRESS.withName("pd"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("qp_num"),
            JAVA_INT.withName("state"),
            JAVA_INT.withName("qp_type"),
            Pthread.mutex("mutex"),
            Pthread.cond("cond"),
            JAVA_INT.withName("events_completed"),
            MemoryLayout.paddingLayout(4))
            .withName("ibv_qp");

    /** {@code sizeof(struct ibv_qp)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long QP_NUM = Downcalls.offset(LAYOUT, "qp_num");

    private static final MethodHandle POST = VerbsDispatch.criticalPointerDowncall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));

    private IbvQp() {
    }

    /** Sizes a {@code struct ibv_qp*}; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return VerbsDispatch.sized(pointer, SIZE);
    }

    /** {@code qp_num}: the 24-bit number a peer's QP is connected to. */
    public static int qpNum(MemorySegment s) {
        return s.get(JAVA_INT, QP_NUM);
    }

    /**
     * {@code int ibv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)}: posts the
     * chain starting at {@code wr}.
     *
     * @param badWr 8 bytes that receive the first request that was not posted, on failure
     * @return 0, or an errno value ({@code ENOMEM}: the send queue is full); requests before {@code *bad_wr} were
     *         posted
     */
    public static int postSend(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        long fn = VerbsDispatch.contextOp(qp, IbvContextOps.POST_SEND);
        try {
            return (int) POST.invokeExact(VerbsDispatch.target(fn), qp, wr, badWr);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code int ibv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)}: posts the
     * chain of receives starting at {@code wr}; same results as {@link #postSend}.
     */
    public static int postRecv(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        long fn = VerbsDispatch.contextOp(qp, IbvContextOps.POST_RECV);
        try {
            return (int) POST.invokeExact(VerbsDispatch.target(fn), qp, wr, badWr);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
