package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_context_ops} (verbs.h): the function table embedded (not pointed to) at {@code ibv_context+8}.
 * Only the slots the header's inline functions call are used ({@link #POLL_CQ}, {@link #REQ_NOTIFY_CQ},
 * {@link #POST_SEND}, {@link #POST_RECV}, {@link #POST_SRQ_RECV}); the {@code _compat_*} slots are placeholders of an
 * old ABI that no provider fills and must never be called.
 */
public final class IbvContextOps {

    /** {@code struct ibv_context_ops}: 32 function pointers, in header order. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("_compat_query_device"),
            ADDRESS.withName("_compat_query_port"),
            ADDRESS.withName("_compat_alloc_pd"),
            ADDRESS.withName("_compat_dealloc_pd"),
            ADDRESS.withName("_compat_reg_mr"),
            ADDRESS.withName("_compat_rereg_mr"),
            ADDRESS.withName("_compat_dereg_mr"),
            ADDRESS.withName("alloc_mw"),
            ADDRESS.withName("bind_mw"),
            ADDRESS.withName("dealloc_mw"),
            ADDRESS.withName("_compat_create_cq"),
            ADDRESS.withName("poll_cq"),
            ADDRESS.withName("req_notify_cq"),
            ADDRESS.withName("_compat_cq_event"),
            ADDRESS.withName("_compat_resize_cq"),
            ADDRESS.withName("_compat_destroy_cq"),
            ADDRESS.withName("_compat_create_srq"),
            ADDRESS.withName("_compat_modify_srq"),
            ADDRESS.withName("_compat_query_srq"),
            ADDRESS.withName("_compat_destroy_srq"),
            ADDRESS.withName("post_srq_recv"),
            ADDRESS.withName("_compat_create_qp"),
            ADDRESS.withName("_compat_query_qp"),
            ADDRESS.withName("_compat_modify_qp"),
            ADDRESS.withName("_compat_destroy_qp"),
            ADDRESS.withName("post_send"),
            ADDRESS.withName("post_recv"),
            ADDRESS.withName("_compat_create_ah"),
            ADDRESS.withName("_compat_destroy_ah"),
            ADDRESS.withName("_compat_attach_mcast"),
            ADDRESS.withName("_compat_detach_mcast"),
            ADDRESS.withName("_compat_async_event"))
            .withName("ibv_context_ops");

    /** {@code int (*poll_cq)(struct ibv_cq *, int num_entries, struct ibv_wc *)}. */
    public static final long POLL_CQ = Downcalls.offset(LAYOUT, "poll_cq");
    /** {@code int (*req_notify_cq)(struct ibv_cq *, int solicited_only)}. */
    public static final long REQ_NOTIFY_CQ = Downcalls.offset(LAYOUT, "req_notify_cq");
    /** {@code int (*post_srq_recv)(struct ibv_srq *, struct ibv_recv_wr *, struct ibv_recv_wr **)}. */
    public static final long POST_SRQ_RECV = Downcalls.offset(LAYOUT, "post_srq_recv");
    /** {@code int (*post_send)(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **)}. */
    public static final long POST_SEND = Downcalls.offset(LAYOUT, "post_send");
    /** {@code int (*post_recv)(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **)}. */
    public static final long POST_RECV = Downcalls.offset(LAYOUT, "post_recv");

    private IbvContextOps() {
    }
}
