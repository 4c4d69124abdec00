/*
 * ABI probe for the dev.rivulet.rdma.verbs.sys binding (libibverbs and librdmacm, rdma-core 44).
 *
 * VerbsAbiTest compiles this file with the system gcc against the installed infiniband/ and rdma/ headers
 * (libibverbs-dev, librdmacm-dev), runs it and compares every line with the Java layouts and constants. It needs the
 * headers only (no -libverbs), so it checks what the binding was written against.
 *
 * Without arguments, one fact per line:
 *   struct <c-name> <sizeof> <alignof>
 *   field <c-name> <member.path> <offsetof> <sizeof>
 *   const <NAME> <value as signed 64-bit decimal>
 * Anonymous unions have no name in C; their members are printed as members of the enclosing struct.
 *
 * With arguments "encode <sge-address> <next-address>": fills the work requests, scatter/gather entries, queue pair
 * attributes and connection parameters the transport posts with fixed values (the same ones the Java test encodes),
 * and prints each as
 *   bytes <case> <hex of the whole struct>
 * Pointers inside them are the two addresses given, so both sides produce the same bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <stdalign.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#define S(T) printf("struct %s %zu %zu\n", #T, sizeof(struct T), alignof(struct T))
#define F(T, M) printf("field %s %s %zu %zu\n", #T, #M, offsetof(struct T, M), sizeof(((struct T *) 0)->M))
#define C(N) printf("const %s %lld\n", #N, (long long) (N))

/* the struct ibv_context_ops at P, slot by slot */
#define OPS(T, P) F(T, P); F(T, P._compat_query_device); F(T, P._compat_query_port); F(T, P._compat_alloc_pd); \
    F(T, P._compat_dealloc_pd); F(T, P._compat_reg_mr); F(T, P._compat_rereg_mr); F(T, P._compat_dereg_mr); \
    F(T, P.alloc_mw); F(T, P.bind_mw); F(T, P.dealloc_mw); F(T, P._compat_create_cq); F(T, P.poll_cq); \
    F(T, P.req_notify_cq); F(T, P._compat_cq_event); F(T, P._compat_resize_cq); F(T, P._compat_destroy_cq); \
    F(T, P._compat_create_srq); F(T, P._compat_modify_srq); F(T, P._compat_query_srq); F(T, P._compat_destroy_srq); \
    F(T, P.post_srq_recv); F(T, P._compat_create_qp); F(T, P._compat_query_qp); F(T, P._compat_modify_qp); \
    F(T, P._compat_destroy_qp); F(T, P.post_send); F(T, P.post_recv); F(T, P._compat_create_ah); \
    F(T, P._compat_destroy_ah); F(T, P._compat_attach_mcast); F(T, P._compat_detach_mcast); \
    F(T, P._compat_async_event);
/* a struct ibv_context at P (its ops table embedded) */
#define CTX(T, P) F(T, P); F(T, P.device); OPS(T, P.ops); F(T, P.cmd_fd); F(T, P.async_fd); \
    F(T, P.num_comp_vectors); F(T, P.mutex); F(T, P.abi_compat)
/* union ibv_gid at P, member by member */
#define GID(T, P) F(T, P); F(T, P.raw); F(T, P.global); F(T, P.global.subnet_prefix); F(T, P.global.interface_id)
/* struct ibv_global_route at P */
#define GRH(T, P) F(T, P); GID(T, P.dgid); F(T, P.flow_label); F(T, P.sgid_index); F(T, P.hop_limit); \
    F(T, P.traffic_class)
/* struct ibv_ah_attr at P */
#define AH(T, P) F(T, P); GRH(T, P.grh); F(T, P.dlid); F(T, P.sl); F(T, P.src_path_bits); F(T, P.static_rate); \
    F(T, P.is_global); F(T, P.port_num)
/* struct ibv_qp_cap at P */
#define CAP(T, P) F(T, P); F(T, P.max_send_wr); F(T, P.max_recv_wr); F(T, P.max_send_sge); F(T, P.max_recv_sge); \
    F(T, P.max_inline_data)
/* struct rdma_conn_param at P */
#define CONN(T, P) F(T, P); F(T, P.private_data); F(T, P.private_data_len); F(T, P.responder_resources); \
    F(T, P.initiator_depth); F(T, P.flow_control); F(T, P.retry_count); F(T, P.rnr_retry_count); F(T, P.srq); \
    F(T, P.qp_num)
/* struct rdma_ud_param at P */
#define UD(T, P) F(T, P); F(T, P.private_data); F(T, P.private_data_len); AH(T, P.ah_attr); F(T, P.qp_num); \
    F(T, P.qkey)

static void structs(void) {
    /* The function table embedded in struct ibv_context: the inline data-path calls go through its slots. */
    S(ibv_context_ops);
    F(ibv_context_ops, _compat_query_device); F(ibv_context_ops, _compat_query_port);
    F(ibv_context_ops, _compat_alloc_pd); F(ibv_context_ops, _compat_dealloc_pd); F(ibv_context_ops, _compat_reg_mr);
    F(ibv_context_ops, _compat_rereg_mr); F(ibv_context_ops, _compat_dereg_mr); F(ibv_context_ops, alloc_mw);
    F(ibv_context_ops, bind_mw); F(ibv_context_ops, dealloc_mw); F(ibv_context_ops, _compat_create_cq);
    F(ibv_context_ops, poll_cq); F(ibv_context_ops, req_notify_cq); F(ibv_context_ops, _compat_cq_event);
    F(ibv_context_ops, _compat_resize_cq); F(ibv_context_ops, _compat_destroy_cq);
    F(ibv_context_ops, _compat_create_srq); F(ibv_context_ops, _compat_modify_srq);
    F(ibv_context_ops, _compat_query_srq); F(ibv_context_ops, _compat_destroy_srq); F(ibv_context_ops, post_srq_recv);
    F(ibv_context_ops, _compat_create_qp); F(ibv_context_ops, _compat_query_qp);
    F(ibv_context_ops, _compat_modify_qp); F(ibv_context_ops, _compat_destroy_qp); F(ibv_context_ops, post_send);
    F(ibv_context_ops, post_recv); F(ibv_context_ops, _compat_create_ah); F(ibv_context_ops, _compat_destroy_ah);
    F(ibv_context_ops, _compat_attach_mcast); F(ibv_context_ops, _compat_detach_mcast);
    F(ibv_context_ops, _compat_async_event);

    S(ibv_context);
    F(ibv_context, device); OPS(ibv_context, ops); F(ibv_context, cmd_fd); F(ibv_context, async_fd);
    F(ibv_context, num_comp_vectors); F(ibv_context, mutex); F(ibv_context, abi_compat);

    /* Only the members the binding reads: the extended query_port slot, the size guard, the embedded context. */
    S(verbs_context);
    F(verbs_context, query_port); F(verbs_context, sz); CTX(verbs_context, context);

    S(ibv_device_attr);
    F(ibv_device_attr, fw_ver); F(ibv_device_attr, node_guid); F(ibv_device_attr, sys_image_guid);
    F(ibv_device_attr, max_mr_size); F(ibv_device_attr, page_size_cap); F(ibv_device_attr, vendor_id);
    F(ibv_device_attr, vendor_part_id); F(ibv_device_attr, hw_ver); F(ibv_device_attr, max_qp);
    F(ibv_device_attr, max_qp_wr); F(ibv_device_attr, device_cap_flags); F(ibv_device_attr, max_sge);
    F(ibv_device_attr, max_sge_rd); F(ibv_device_attr, max_cq); F(ibv_device_attr, max_cqe);
    F(ibv_device_attr, max_mr); F(ibv_device_attr, max_pd); F(ibv_device_attr, max_qp_rd_atom);
    F(ibv_device_attr, max_ee_rd_atom); F(ibv_device_attr, max_res_rd_atom); F(ibv_device_attr, max_qp_init_rd_atom);
    F(ibv_device_attr, max_ee_init_rd_atom); F(ibv_device_attr, atomic_cap); F(ibv_device_attr, max_ee);
    F(ibv_device_attr, max_rdd); F(ibv_device_attr, max_mw); F(ibv_device_attr, max_raw_ipv6_qp);
    F(ibv_device_attr, max_raw_ethy_qp); F(ibv_device_attr, max_mcast_grp); F(ibv_device_attr, max_mcast_qp_attach);
    F(ibv_device_attr, max_total_mcast_qp_attach); F(ibv_device_attr, max_ah); F(ibv_device_attr, max_fmr);
    F(ibv_device_attr, max_map_per_fmr); F(ibv_device_attr, max_srq); F(ibv_device_attr, max_srq_wr);
    F(ibv_device_attr, max_srq_sge); F(ibv_device_attr, max_pkeys); F(ibv_device_attr, local_ca_ack_delay);
    F(ibv_device_attr, phys_port_cnt);

    S(ibv_port_attr);
    F(ibv_port_attr, state); F(ibv_port_attr, max_mtu); F(ibv_port_attr, active_mtu); F(ibv_port_attr, gid_tbl_len);
    F(ibv_port_attr, port_cap_flags); F(ibv_port_attr, max_msg_sz); F(ibv_port_attr, bad_pkey_cntr);
    F(ibv_port_attr, qkey_viol_cntr); F(ibv_port_attr, pkey_tbl_len); F(ibv_port_attr, lid);
    F(ibv_port_attr, sm_lid); F(ibv_port_attr, lmc); F(ibv_port_attr, max_vl_num); F(ibv_port_attr, sm_sl);
    F(ibv_port_attr, subnet_timeout); F(ibv_port_attr, init_type_reply); F(ibv_port_attr, active_width);
    F(ibv_port_attr, active_speed); F(ibv_port_attr, phys_state); F(ibv_port_attr, link_layer);
    F(ibv_port_attr, flags); F(ibv_port_attr, port_cap_flags2);

    S(ibv_global_route); GID(ibv_global_route, dgid); F(ibv_global_route, flow_label);
    F(ibv_global_route, sgid_index); F(ibv_global_route, hop_limit); F(ibv_global_route, traffic_class);

    S(ibv_ah_attr); GRH(ibv_ah_attr, grh); F(ibv_ah_attr, dlid); F(ibv_ah_attr, sl); F(ibv_ah_attr, src_path_bits);
    F(ibv_ah_attr, static_rate); F(ibv_ah_attr, is_global); F(ibv_ah_attr, port_num);

    S(ibv_qp_cap);
    F(ibv_qp_cap, max_send_wr); F(ibv_qp_cap, max_recv_wr); F(ibv_qp_cap, max_send_sge); F(ibv_qp_cap, max_recv_sge);
    F(ibv_qp_cap, max_inline_data);

    S(ibv_qp_init_attr);
    F(ibv_qp_init_attr, qp_context); F(ibv_qp_init_attr, send_cq); F(ibv_qp_init_attr, recv_cq);
    F(ibv_qp_init_attr, srq); CAP(ibv_qp_init_attr, cap); F(ibv_qp_init_attr, qp_type);
    F(ibv_qp_init_attr, sq_sig_all);

    S(ibv_qp_attr);
    F(ibv_qp_attr, qp_state); F(ibv_qp_attr, cur_qp_state); F(ibv_qp_attr, path_mtu); F(ibv_qp_attr, path_mig_state);
    F(ibv_qp_attr, qkey); F(ibv_qp_attr, rq_psn); F(ibv_qp_attr, sq_psn); F(ibv_qp_attr, dest_qp_num);
    F(ibv_qp_attr, qp_access_flags); CAP(ibv_qp_attr, cap); AH(ibv_qp_attr, ah_attr); AH(ibv_qp_attr, alt_ah_attr);
    F(ibv_qp_attr, pkey_index); F(ibv_qp_attr, alt_pkey_index); F(ibv_qp_attr, en_sqd_async_notify);
    F(ibv_qp_attr, sq_draining); F(ibv_qp_attr, max_rd_atomic); F(ibv_qp_attr, max_dest_rd_atomic);
    F(ibv_qp_attr, min_rnr_timer); F(ibv_qp_attr, port_num); F(ibv_qp_attr, timeout); F(ibv_qp_attr, retry_cnt);
    F(ibv_qp_attr, rnr_retry); F(ibv_qp_attr, alt_port_num); F(ibv_qp_attr, alt_timeout); F(ibv_qp_attr, rate_limit);

    S(ibv_sge); F(ibv_sge, addr); F(ibv_sge, length); F(ibv_sge, lkey);

    S(ibv_send_wr);
    F(ibv_send_wr, wr_id); F(ibv_send_wr, next); F(ibv_send_wr, sg_list); F(ibv_send_wr, num_sge);
    F(ibv_send_wr, opcode); F(ibv_send_wr, send_flags);
    F(ibv_send_wr, imm_data); F(ibv_send_wr, invalidate_rkey);
    F(ibv_send_wr, wr);
    F(ibv_send_wr, wr.rdma); F(ibv_send_wr, wr.rdma.remote_addr); F(ibv_send_wr, wr.rdma.rkey);
    F(ibv_send_wr, wr.atomic); F(ibv_send_wr, wr.atomic.remote_addr); F(ibv_send_wr, wr.atomic.compare_add);
    F(ibv_send_wr, wr.atomic.swap); F(ibv_send_wr, wr.atomic.rkey);
    F(ibv_send_wr, wr.ud); F(ibv_send_wr, wr.ud.ah); F(ibv_send_wr, wr.ud.remote_qpn);
    F(ibv_send_wr, wr.ud.remote_qkey);
    F(ibv_send_wr, qp_type); F(ibv_send_wr, qp_type.xrc); F(ibv_send_wr, qp_type.xrc.remote_srqn);
    F(ibv_send_wr, bind_mw); F(ibv_send_wr, bind_mw.mw); F(ibv_send_wr, bind_mw.rkey);
    F(ibv_send_wr, bind_mw.bind_info); F(ibv_send_wr, bind_mw.bind_info.mr); F(ibv_send_wr, bind_mw.bind_info.addr);
    F(ibv_send_wr, bind_mw.bind_info.length); F(ibv_send_wr, bind_mw.bind_info.mw_access_flags);
    F(ibv_send_wr, tso); F(ibv_send_wr, tso.hdr); F(ibv_send_wr, tso.hdr_sz); F(ibv_send_wr, tso.mss);

    S(ibv_recv_wr);
    F(ibv_recv_wr, wr_id); F(ibv_recv_wr, next); F(ibv_recv_wr, sg_list); F(ibv_recv_wr, num_sge);

    S(ibv_wc);
    F(ibv_wc, wr_id); F(ibv_wc, status); F(ibv_wc, opcode); F(ibv_wc, vendor_err); F(ibv_wc, byte_len);
    F(ibv_wc, imm_data); F(ibv_wc, invalidated_rkey); F(ibv_wc, qp_num); F(ibv_wc, src_qp); F(ibv_wc, wc_flags);
    F(ibv_wc, pkey_index); F(ibv_wc, slid); F(ibv_wc, sl); F(ibv_wc, dlid_path_bits);

    S(ibv_mr);
    F(ibv_mr, context); F(ibv_mr, pd); F(ibv_mr, addr); F(ibv_mr, length); F(ibv_mr, handle); F(ibv_mr, lkey);
    F(ibv_mr, rkey);

    S(ibv_pd); F(ibv_pd, context); F(ibv_pd, handle);

    S(ibv_cq);
    F(ibv_cq, context); F(ibv_cq, channel); F(ibv_cq, cq_context); F(ibv_cq, handle); F(ibv_cq, cqe);
    F(ibv_cq, mutex); F(ibv_cq, cond); F(ibv_cq, comp_events_completed); F(ibv_cq, async_events_completed);

    S(ibv_qp);
    F(ibv_qp, context); F(ibv_qp, qp_context); F(ibv_qp, pd); F(ibv_qp, send_cq); F(ibv_qp, recv_cq); F(ibv_qp, srq);
    F(ibv_qp, handle); F(ibv_qp, qp_num); F(ibv_qp, state); F(ibv_qp, qp_type); F(ibv_qp, mutex); F(ibv_qp, cond);
    F(ibv_qp, events_completed);

    S(ibv_comp_channel); F(ibv_comp_channel, context); F(ibv_comp_channel, fd); F(ibv_comp_channel, refcnt);

    /* librdmacm */
    S(rdma_event_channel); F(rdma_event_channel, fd);

    S(rdma_cm_id);
    F(rdma_cm_id, verbs); F(rdma_cm_id, channel); F(rdma_cm_id, context); F(rdma_cm_id, qp); F(rdma_cm_id, route);
    F(rdma_cm_id, ps); F(rdma_cm_id, port_num); F(rdma_cm_id, event); F(rdma_cm_id, send_cq_channel);
    F(rdma_cm_id, send_cq); F(rdma_cm_id, recv_cq_channel); F(rdma_cm_id, recv_cq); F(rdma_cm_id, srq);
    F(rdma_cm_id, pd); F(rdma_cm_id, qp_type);

    S(rdma_conn_param);
    F(rdma_conn_param, private_data); F(rdma_conn_param, private_data_len); F(rdma_conn_param, responder_resources);
    F(rdma_conn_param, initiator_depth); F(rdma_conn_param, flow_control); F(rdma_conn_param, retry_count);
    F(rdma_conn_param, rnr_retry_count); F(rdma_conn_param, srq); F(rdma_conn_param, qp_num);

    S(rdma_ud_param);
    F(rdma_ud_param, private_data); F(rdma_ud_param, private_data_len); AH(rdma_ud_param, ah_attr);
    F(rdma_ud_param, qp_num); F(rdma_ud_param, qkey);

    S(rdma_cm_event);
    F(rdma_cm_event, id); F(rdma_cm_event, listen_id); F(rdma_cm_event, event); F(rdma_cm_event, status);
    F(rdma_cm_event, param); CONN(rdma_cm_event, param.conn); UD(rdma_cm_event, param.ud);

    /* Socket addresses handed to rdma_bind_addr / rdma_resolve_addr. */
    S(sockaddr_in);
    F(sockaddr_in, sin_family); F(sockaddr_in, sin_port); F(sockaddr_in, sin_addr); F(sockaddr_in, sin_zero);
    S(sockaddr_in6);
    F(sockaddr_in6, sin6_family); F(sockaddr_in6, sin6_port); F(sockaddr_in6, sin6_flowinfo);
    F(sockaddr_in6, sin6_addr); F(sockaddr_in6, sin6_scope_id);

    /* poll(2)'s descriptor entry, for the completion channel wait. */
    S(pollfd); F(pollfd, fd); F(pollfd, events); F(pollfd, revents);
}

static void constants(void) {
    /* enum ibv_wc_status */
    C(IBV_WC_SUCCESS); C(IBV_WC_LOC_LEN_ERR); C(IBV_WC_LOC_QP_OP_ERR); C(IBV_WC_LOC_EEC_OP_ERR);
    C(IBV_WC_LOC_PROT_ERR); C(IBV_WC_WR_FLUSH_ERR); C(IBV_WC_MW_BIND_ERR); C(IBV_WC_BAD_RESP_ERR);
    C(IBV_WC_LOC_ACCESS_ERR); C(IBV_WC_REM_INV_REQ_ERR); C(IBV_WC_REM_ACCESS_ERR); C(IBV_WC_REM_OP_ERR);
    C(IBV_WC_RETRY_EXC_ERR); C(IBV_WC_RNR_RETRY_EXC_ERR); C(IBV_WC_LOC_RDD_VIOL_ERR); C(IBV_WC_REM_INV_RD_REQ_ERR);
    C(IBV_WC_REM_ABORT_ERR); C(IBV_WC_INV_EECN_ERR); C(IBV_WC_INV_EEC_STATE_ERR); C(IBV_WC_FATAL_ERR);
    C(IBV_WC_RESP_TIMEOUT_ERR); C(IBV_WC_GENERAL_ERR); C(IBV_WC_TM_ERR); C(IBV_WC_TM_RNDV_INCOMPLETE);
    /* enum ibv_wc_opcode, enum ibv_wc_flags */
    C(IBV_WC_SEND); C(IBV_WC_RDMA_WRITE); C(IBV_WC_RDMA_READ); C(IBV_WC_COMP_SWAP); C(IBV_WC_FETCH_ADD);
    C(IBV_WC_BIND_MW); C(IBV_WC_LOCAL_INV); C(IBV_WC_TSO); C(IBV_WC_RECV); C(IBV_WC_RECV_RDMA_WITH_IMM);
    C(IBV_WC_GRH); C(IBV_WC_WITH_IMM); C(IBV_WC_IP_CSUM_OK); C(IBV_WC_WITH_INV);
    /* enum ibv_wr_opcode, enum ibv_send_flags */
    C(IBV_WR_RDMA_WRITE); C(IBV_WR_RDMA_WRITE_WITH_IMM); C(IBV_WR_SEND); C(IBV_WR_SEND_WITH_IMM);
    C(IBV_WR_RDMA_READ); C(IBV_WR_ATOMIC_CMP_AND_SWP); C(IBV_WR_ATOMIC_FETCH_AND_ADD); C(IBV_WR_LOCAL_INV);
    C(IBV_WR_BIND_MW); C(IBV_WR_SEND_WITH_INV);
    C(IBV_SEND_FENCE); C(IBV_SEND_SIGNALED); C(IBV_SEND_SOLICITED); C(IBV_SEND_INLINE); C(IBV_SEND_IP_CSUM);
    /* enum ibv_access_flags */
    C(IBV_ACCESS_LOCAL_WRITE); C(IBV_ACCESS_REMOTE_WRITE); C(IBV_ACCESS_REMOTE_READ); C(IBV_ACCESS_REMOTE_ATOMIC);
    C(IBV_ACCESS_MW_BIND); C(IBV_ACCESS_ZERO_BASED); C(IBV_ACCESS_ON_DEMAND); C(IBV_ACCESS_HUGETLB);
    C(IBV_ACCESS_RELAXED_ORDERING); C(IBV_ACCESS_OPTIONAL_RANGE);
    /* enum ibv_qp_type, enum ibv_qp_state, enum ibv_mig_state */
    C(IBV_QPT_RC); C(IBV_QPT_UC); C(IBV_QPT_UD);
    C(IBV_QPS_RESET); C(IBV_QPS_INIT); C(IBV_QPS_RTR); C(IBV_QPS_RTS); C(IBV_QPS_SQD); C(IBV_QPS_SQE);
    C(IBV_QPS_ERR); C(IBV_MIG_MIGRATED);
    /* enum ibv_qp_attr_mask */
    C(IBV_QP_STATE); C(IBV_QP_CUR_STATE); C(IBV_QP_EN_SQD_ASYNC_NOTIFY); C(IBV_QP_ACCESS_FLAGS);
    C(IBV_QP_PKEY_INDEX); C(IBV_QP_PORT); C(IBV_QP_QKEY); C(IBV_QP_AV); C(IBV_QP_PATH_MTU); C(IBV_QP_TIMEOUT);
    C(IBV_QP_RETRY_CNT); C(IBV_QP_RNR_RETRY); C(IBV_QP_RQ_PSN); C(IBV_QP_MAX_QP_RD_ATOMIC); C(IBV_QP_ALT_PATH);
    C(IBV_QP_MIN_RNR_TIMER); C(IBV_QP_SQ_PSN); C(IBV_QP_MAX_DEST_RD_ATOMIC); C(IBV_QP_PATH_MIG_STATE);
    C(IBV_QP_CAP); C(IBV_QP_DEST_QPN); C(IBV_QP_RATE_LIMIT);
    /* enum ibv_mtu, enum ibv_port_state, link layers, enum ibv_atomic_cap */
    C(IBV_MTU_256); C(IBV_MTU_512); C(IBV_MTU_1024); C(IBV_MTU_2048); C(IBV_MTU_4096);
    C(IBV_PORT_NOP); C(IBV_PORT_DOWN); C(IBV_PORT_INIT); C(IBV_PORT_ARMED); C(IBV_PORT_ACTIVE);
    C(IBV_PORT_ACTIVE_DEFER);
    C(IBV_LINK_LAYER_UNSPECIFIED); C(IBV_LINK_LAYER_INFINIBAND); C(IBV_LINK_LAYER_ETHERNET);
    C(IBV_ATOMIC_NONE); C(IBV_ATOMIC_HCA); C(IBV_ATOMIC_GLOB);
    C(IBV_SYSFS_NAME_MAX);
    /* librdmacm: enum rdma_cm_event_type, enum rdma_port_space, connection limits */
    C(RDMA_CM_EVENT_ADDR_RESOLVED); C(RDMA_CM_EVENT_ADDR_ERROR); C(RDMA_CM_EVENT_ROUTE_RESOLVED);
    C(RDMA_CM_EVENT_ROUTE_ERROR); C(RDMA_CM_EVENT_CONNECT_REQUEST); C(RDMA_CM_EVENT_CONNECT_RESPONSE);
    C(RDMA_CM_EVENT_CONNECT_ERROR); C(RDMA_CM_EVENT_UNREACHABLE); C(RDMA_CM_EVENT_REJECTED);
    C(RDMA_CM_EVENT_ESTABLISHED); C(RDMA_CM_EVENT_DISCONNECTED); C(RDMA_CM_EVENT_DEVICE_REMOVAL);
    C(RDMA_CM_EVENT_MULTICAST_JOIN); C(RDMA_CM_EVENT_MULTICAST_ERROR); C(RDMA_CM_EVENT_ADDR_CHANGE);
    C(RDMA_CM_EVENT_TIMEWAIT_EXIT);
    C(RDMA_PS_IPOIB); C(RDMA_PS_TCP); C(RDMA_PS_UDP); C(RDMA_PS_IB);
    C(RDMA_MAX_RESP_RES); C(RDMA_MAX_INIT_DEPTH);
}

/* ---------------------------------------------------------------------------------------------------- encoding */

static void dump(const char *name, const void *p, size_t n) {
    const unsigned char *b = p;
    printf("bytes %s ", name);
    for (size_t i = 0; i < n; i++) {
        printf("%02x", b[i]);
    }
    printf("\n");
}

static void encode(struct ibv_sge *sge, void *next) {
    struct ibv_send_wr w;
    struct ibv_recv_wr r;
    struct ibv_sge s;
    struct ibv_wc wc;
    struct ibv_qp_attr a;
    struct ibv_qp_init_attr init;
    struct rdma_conn_param cp;

    /* A message carrying a control word as immediate data, copied inline, two gather entries. */
    memset(&w, 0, sizeof w);
    w.wr_id = 0x1122334455667788ULL;
    w.next = next;
    w.sg_list = sge;
    w.num_sge = 2;
    w.opcode = IBV_WR_SEND_WITH_IMM;
    w.send_flags = IBV_SEND_INLINE | IBV_SEND_SIGNALED;
    w.imm_data = htonl(0x00000301);
    dump("send_inline", &w, sizeof w);

    /* A protocol-only word: zero bytes, no gather list, not signalled. */
    memset(&w, 0, sizeof w);
    w.wr_id = 5;
    w.opcode = IBV_WR_SEND_WITH_IMM;
    w.imm_data = htonl(0xffffff02);
    dump("send_word", &w, sizeof w);

    memset(&w, 0, sizeof w);
    w.wr_id = 7;
    w.next = next;
    w.sg_list = sge;
    w.num_sge = 1;
    w.opcode = IBV_WR_RDMA_WRITE;
    w.send_flags = IBV_SEND_SIGNALED | IBV_SEND_FENCE;
    w.wr.rdma.remote_addr = 0x00007f0012345678ULL;
    w.wr.rdma.rkey = 0xdeadbeefU;
    dump("write", &w, sizeof w);

    memset(&w, 0, sizeof w);
    w.wr_id = 11;
    w.sg_list = sge;
    w.num_sge = 1;
    w.opcode = IBV_WR_RDMA_READ;
    w.send_flags = IBV_SEND_SIGNALED;
    w.wr.rdma.remote_addr = 0x00007f00abcd0000ULL;
    w.wr.rdma.rkey = 0x00c0ffeeU;
    dump("read", &w, sizeof w);

    /* The flush: a zero-length read, nothing to gather, no key to check. */
    memset(&w, 0, sizeof w);
    w.wr_id = 8;
    w.opcode = IBV_WR_RDMA_READ;
    w.send_flags = IBV_SEND_SIGNALED;
    dump("read_flush", &w, sizeof w);

    memset(&w, 0, sizeof w);
    w.wr_id = 9;
    w.sg_list = sge;
    w.num_sge = 1;
    w.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
    w.send_flags = IBV_SEND_SIGNALED;
    w.wr.atomic.remote_addr = 0x0000000000001000ULL;
    w.wr.atomic.compare_add = 5;
    w.wr.atomic.rkey = 0x1234;
    dump("fetch_add", &w, sizeof w);

    memset(&w, 0, sizeof w);
    w.wr_id = 10;
    w.sg_list = sge;
    w.num_sge = 1;
    w.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
    w.send_flags = IBV_SEND_SIGNALED;
    w.wr.atomic.remote_addr = 0x0000000000002008ULL;
    w.wr.atomic.compare_add = 0x1111;
    w.wr.atomic.swap = 0xffffffff00002222ULL;
    w.wr.atomic.rkey = 0x4321;
    dump("cmp_swap", &w, sizeof w);

    memset(&r, 0, sizeof r);
    r.wr_id = 0x8000000000000003ULL;
    r.next = next;
    r.sg_list = sge;
    r.num_sge = 1;
    dump("recv", &r, sizeof r);

    memset(&s, 0, sizeof s);
    s.addr = 0x00007f00aabbccddULL;
    s.length = 65536;
    s.lkey = 0x55;
    dump("sge", &s, sizeof s);

    /* A completion as a provider fills it: the Java side decodes these bytes. */
    memset(&wc, 0, sizeof wc);
    wc.wr_id = 0x8000000000000011ULL;
    wc.status = IBV_WC_REM_ACCESS_ERR;
    wc.opcode = IBV_WC_RECV;
    wc.vendor_err = 0x81;
    wc.byte_len = 4096;
    wc.imm_data = htonl(0x00000a02);
    wc.qp_num = 0x123;
    wc.src_qp = 0x456;
    wc.wc_flags = IBV_WC_WITH_IMM;
    wc.pkey_index = 1;
    wc.slid = 2;
    wc.sl = 3;
    wc.dlid_path_bits = 4;
    dump("wc", &wc, sizeof wc);

    /* The RC queue pair's creation and its three transitions with the values the Java test uses. */
    memset(&init, 0, sizeof init);
    init.send_cq = next;
    init.recv_cq = next;
    init.cap.max_send_wr = 136;
    init.cap.max_recv_wr = 144;
    init.cap.max_send_sge = 1;
    init.cap.max_recv_sge = 1;
    init.cap.max_inline_data = 128;
    init.qp_type = IBV_QPT_RC;
    init.sq_sig_all = 0;
    dump("qp_init_attr", &init, sizeof init);

    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_INIT;
    a.pkey_index = 0;
    a.port_num = 1;
    a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ
                        | IBV_ACCESS_REMOTE_ATOMIC;
    dump("qp_to_init", &a, sizeof a);

    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTR;
    a.path_mtu = IBV_MTU_1024;
    a.dest_qp_num = 0x000abc;
    a.rq_psn = 0x123456;
    a.max_dest_rd_atomic = 16;
    a.min_rnr_timer = 12;
    a.ah_attr.is_global = 1;
    a.ah_attr.dlid = 0;
    a.ah_attr.sl = 0;
    a.ah_attr.src_path_bits = 0;
    a.ah_attr.port_num = 1;
    for (int i = 0; i < 16; i++) {
        a.ah_attr.grh.dgid.raw[i] = (uint8_t) (0xf0 + i);
    }
    a.ah_attr.grh.sgid_index = 3;
    a.ah_attr.grh.hop_limit = 64;
    a.ah_attr.grh.traffic_class = 0;
    a.ah_attr.grh.flow_label = 0;
    dump("qp_to_rtr", &a, sizeof a);

    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_RTS;
    a.timeout = 14;
    a.retry_cnt = 7;
    a.rnr_retry = 7;
    a.sq_psn = 0x654321;
    a.max_rd_atomic = 16;
    dump("qp_to_rts", &a, sizeof a);

    memset(&a, 0, sizeof a);
    a.qp_state = IBV_QPS_ERR;
    dump("qp_to_err", &a, sizeof a);

    /* rdma_connect's parameters: private data, read/atomic depths, infinite RNR retry. */
    memset(&cp, 0, sizeof cp);
    cp.private_data = next;
    cp.private_data_len = 24;
    cp.responder_resources = 16;
    cp.initiator_depth = 16;
    cp.retry_count = 7;
    cp.rnr_retry_count = 7;
    dump("conn_param", &cp, sizeof cp);
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "encode") == 0) {
        encode((struct ibv_sge *) (uintptr_t) strtoull(argv[2], NULL, 0),
               (void *) (uintptr_t) strtoull(argv[3], NULL, 0));
        return 0;
    }
    structs();
    constants();
    return 0;
}
