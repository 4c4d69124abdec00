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
 * {@code struct ibv_cq} (verbs.h), a completion queue from {@link Ibverbs#createCq}, and the two calls the header
 * defines inline on it: {@link #poll} ({@code ibv_poll_cq}) and {@link #reqNotify} ({@code ibv_req_notify_cq}), both
 * dispatched through the context's ops table and linked {@code critical}: they only read and arm memory-mapped
 * queues.
 */
public final class IbvCq {

    /** {@code struct ibv_cq}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            ADDRESS.withName("channel"),
            ADDRESS.withName("cq_context"),
            JAVA_INT.withName("handle"),
            JAVA_INT.withName("cqe"),
            Pthread.mutex("mutex"),
            Pthread.cond("cond"),
            JAVA_INT.withName("comp_events_completed"),
            JAVA_INT.withName("async_events_completed"))
            .withName("ibv_cq");

    /** {@code sizeof(struct ibv_cq)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long CQE = Downcalls.offset(LAYOUT, "cqe");

    private static final MethodHandle POLL_CQ = VerbsDispatch.criticalPointerDowncall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    private static final MethodHandle REQ_NOTIFY_CQ = VerbsDispatch.criticalPointerDowncall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));

    private IbvCq() {
    }

    /** Sizes a {@code struct ibv_cq*}; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return VerbsDispatch.sized(pointer, SIZE);
    }

    /** {@code cqe}: the entries the provider really made (at least what was asked for). */
    public static int cqe(MemorySegment s) {
        return s.get(JAVA_INT, CQE);
    }

    /**
     * {@code int ibv_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)}.
     *
     * @param wc room for {@code numEntries} {@link IbvWc} entries
     * @return completions written (0 when none), or a negative value on failure
     */
    public static int poll(MemorySegment cq, int numEntries, MemorySegment wc) {
        long fn = VerbsDispatch.contextOp(cq, IbvContextOps.POLL_CQ);
        try {
            return (int) POLL_CQ.invokeExact(VerbsDispatch.target(fn), cq, numEntries, wc);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code int ibv_req_notify_cq(struct ibv_cq *cq, int solicited_only)}: arms the queue once; the next completion
     * (any, with {@code solicitedOnly} 0) makes its channel readable. Completions already in the queue do not count,
     * so poll once more after arming.
     *
     * @return 0, or an errno value
     */
    public static int reqNotify(MemorySegment cq, int solicitedOnly) {
        long fn = VerbsDispatch.contextOp(cq, IbvContextOps.REQ_NOTIFY_CQ);
        try {
            return (int) REQ_NOTIFY_CQ.invokeExact(VerbsDispatch.target(fn), cq, solicitedOnly);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
