/*
 * ABI probe for the dev.rivulet.rdma.fabric.sys binding.
 *
 * LibfabricAbiTest compiles this file with the system gcc against the installed rdma/ headers, runs it
 * and compares every line with the Java layouts and constants. It needs the headers only (no -lfabric), so it
 * checks what the binding was written against, not which library happens to be loaded.
 *
 * Output, one fact per line:
 *   version <major> <minor>
 *   struct <c-name> <sizeof> <alignof>
 *   field <c-name> <member.path> <offsetof> <sizeof>
 *   const <NAME> <value as signed 64-bit decimal>
 *
 * Every struct the Java side declares must appear here, and every member of it, so that a field added in Java
 * without a matching line makes the test fail instead of passing unchecked.
 */
#include <stdio.h>
#include <stddef.h>
#include <stdalign.h>
#include <sys/uio.h>
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_rma.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_errno.h>

#define S(T) printf("struct %s %zu %zu\n", #T, sizeof(struct T), alignof(struct T))
#define F(T, M) printf("field %s %s %zu %zu\n", #T, #M, offsetof(struct T, M), sizeof(((struct T *) 0)->M))
/* the struct fid every object embeds at offset 0, member by member */
#define FID(T) F(T, fid); F(T, fid.fclass); F(T, fid.context); F(T, fid.ops)
#define C(N) printf("const %s %lld\n", #N, (long long) (N))

static void structs(void) {
    /* struct iovec (sys/uio.h): the element type of fi_msg / fi_mr_attr vectors */
    S(iovec); F(iovec, iov_base); F(iovec, iov_len);

    S(fi_info);
    F(fi_info, next); F(fi_info, caps); F(fi_info, mode); F(fi_info, addr_format); F(fi_info, src_addrlen);
    F(fi_info, dest_addrlen); F(fi_info, src_addr); F(fi_info, dest_addr); F(fi_info, handle);
    F(fi_info, tx_attr); F(fi_info, rx_attr); F(fi_info, ep_attr); F(fi_info, domain_attr);
    F(fi_info, fabric_attr); F(fi_info, nic);

    S(fi_tx_attr);
    F(fi_tx_attr, caps); F(fi_tx_attr, mode); F(fi_tx_attr, op_flags); F(fi_tx_attr, msg_order);
    F(fi_tx_attr, comp_order); F(fi_tx_attr, inject_size); F(fi_tx_attr, size); F(fi_tx_attr, iov_limit);
    F(fi_tx_attr, rma_iov_limit); F(fi_tx_attr, tclass);

    S(fi_rx_attr);
    F(fi_rx_attr, caps); F(fi_rx_attr, mode); F(fi_rx_attr, op_flags); F(fi_rx_attr, msg_order);
    F(fi_rx_attr, comp_order); F(fi_rx_attr, total_buffered_recv); F(fi_rx_attr, size); F(fi_rx_attr, iov_limit);

    S(fi_ep_attr);
    F(fi_ep_attr, type); F(fi_ep_attr, protocol); F(fi_ep_attr, protocol_version); F(fi_ep_attr, max_msg_size);
    F(fi_ep_attr, msg_prefix_size); F(fi_ep_attr, max_order_raw_size); F(fi_ep_attr, max_order_war_size);
    F(fi_ep_attr, max_order_waw_size); F(fi_ep_attr, mem_tag_format); F(fi_ep_attr, tx_ctx_cnt);
    F(fi_ep_attr, rx_ctx_cnt); F(fi_ep_attr, auth_key_size); F(fi_ep_attr, auth_key);

    S(fi_domain_attr);
    F(fi_domain_attr, domain); F(fi_domain_attr, name); F(fi_domain_attr, threading);
    F(fi_domain_attr, control_progress); F(fi_domain_attr, data_progress); F(fi_domain_attr, resource_mgmt);
    F(fi_domain_attr, av_type); F(fi_domain_attr, mr_mode); F(fi_domain_attr, mr_key_size);
    F(fi_domain_attr, cq_data_size); F(fi_domain_attr, cq_cnt); F(fi_domain_attr, ep_cnt);
    F(fi_domain_attr, tx_ctx_cnt); F(fi_domain_attr, rx_ctx_cnt); F(fi_domain_attr, max_ep_tx_ctx);
    F(fi_domain_attr, max_ep_rx_ctx); F(fi_domain_attr, max_ep_stx_ctx); F(fi_domain_attr, max_ep_srx_ctx);
    F(fi_domain_attr, cntr_cnt); F(fi_domain_attr, mr_iov_limit); F(fi_domain_attr, caps);
    F(fi_domain_attr, mode); F(fi_domain_attr, auth_key); F(fi_domain_attr, auth_key_size);
    F(fi_domain_attr, max_err_data); F(fi_domain_attr, mr_cnt); F(fi_domain_attr, tclass);

    S(fi_fabric_attr);
    F(fi_fabric_attr, fabric); F(fi_fabric_attr, name); F(fi_fabric_attr, prov_name);
    F(fi_fabric_attr, prov_version); F(fi_fabric_attr, api_version);

    S(fi_cq_attr);
    F(fi_cq_attr, size); F(fi_cq_attr, flags); F(fi_cq_attr, format); F(fi_cq_attr, wait_obj);
    F(fi_cq_attr, signaling_vector); F(fi_cq_attr, wait_cond); F(fi_cq_attr, wait_set);

    S(fi_av_attr);
    F(fi_av_attr, type); F(fi_av_attr, rx_ctx_bits); F(fi_av_attr, count); F(fi_av_attr, ep_per_node);
    F(fi_av_attr, name); F(fi_av_attr, map_addr); F(fi_av_attr, flags);

    S(fi_mr_attr);
    F(fi_mr_attr, mr_iov); F(fi_mr_attr, iov_count); F(fi_mr_attr, access); F(fi_mr_attr, offset);
    F(fi_mr_attr, requested_key); F(fi_mr_attr, context); F(fi_mr_attr, auth_key_size); F(fi_mr_attr, auth_key);
    F(fi_mr_attr, iface); F(fi_mr_attr, device); F(fi_mr_attr, device.reserved); F(fi_mr_attr, device.cuda);
    F(fi_mr_attr, device.ze); F(fi_mr_attr, device.neuron); F(fi_mr_attr, device.synapseai);

    S(fi_cq_data_entry);
    F(fi_cq_data_entry, op_context); F(fi_cq_data_entry, flags); F(fi_cq_data_entry, len);
    F(fi_cq_data_entry, buf); F(fi_cq_data_entry, data);

    S(fi_cq_err_entry);
    F(fi_cq_err_entry, op_context); F(fi_cq_err_entry, flags); F(fi_cq_err_entry, len); F(fi_cq_err_entry, buf);
    F(fi_cq_err_entry, data); F(fi_cq_err_entry, tag); F(fi_cq_err_entry, olen); F(fi_cq_err_entry, err);
    F(fi_cq_err_entry, prov_errno); F(fi_cq_err_entry, err_data); F(fi_cq_err_entry, err_data_size);

    S(fi_msg);
    F(fi_msg, msg_iov); F(fi_msg, desc); F(fi_msg, iov_count); F(fi_msg, addr); F(fi_msg, context);
    F(fi_msg, data);

    S(fi_rma_iov); F(fi_rma_iov, addr); F(fi_rma_iov, len); F(fi_rma_iov, key);
    S(fi_rma_ioc); F(fi_rma_ioc, addr); F(fi_rma_ioc, count); F(fi_rma_ioc, key);
    S(fi_ioc); F(fi_ioc, addr); F(fi_ioc, count);

    S(fi_msg_rma);
    F(fi_msg_rma, msg_iov); F(fi_msg_rma, desc); F(fi_msg_rma, iov_count); F(fi_msg_rma, addr);
    F(fi_msg_rma, rma_iov); F(fi_msg_rma, rma_iov_count); F(fi_msg_rma, context); F(fi_msg_rma, data);

    S(fi_msg_atomic);
    F(fi_msg_atomic, msg_iov); F(fi_msg_atomic, desc); F(fi_msg_atomic, iov_count); F(fi_msg_atomic, addr);
    F(fi_msg_atomic, rma_iov); F(fi_msg_atomic, rma_iov_count); F(fi_msg_atomic, datatype);
    F(fi_msg_atomic, op); F(fi_msg_atomic, context); F(fi_msg_atomic, data);

    S(fi_context2); F(fi_context2, internal);

    /* Objects: every fid_* starts with struct fid, then its ops-table pointers. */
    S(fid); F(fid, fclass); F(fid, context); F(fid, ops);
    S(fid_fabric); FID(fid_fabric); F(fid_fabric, ops); F(fid_fabric, api_version);
    S(fid_domain); FID(fid_domain); F(fid_domain, ops); F(fid_domain, mr);
    S(fid_ep);
    FID(fid_ep); F(fid_ep, ops); F(fid_ep, cm); F(fid_ep, msg); F(fid_ep, rma); F(fid_ep, tagged);
    F(fid_ep, atomic); F(fid_ep, collective);
    S(fid_cq); FID(fid_cq); F(fid_cq, ops);
    S(fid_av); FID(fid_av); F(fid_av, ops);
    S(fid_mr); FID(fid_mr); F(fid_mr, mem_desc); F(fid_mr, key);

    /* Ops tables: slot offsets are what the Java dispatch reads. */
    S(fi_ops);
    F(fi_ops, size); F(fi_ops, close); F(fi_ops, bind); F(fi_ops, control); F(fi_ops, ops_open);
    F(fi_ops, tostr); F(fi_ops, ops_set);
    S(fi_ops_fabric);
    F(fi_ops_fabric, size); F(fi_ops_fabric, domain); F(fi_ops_fabric, passive_ep); F(fi_ops_fabric, eq_open);
    F(fi_ops_fabric, wait_open); F(fi_ops_fabric, trywait); F(fi_ops_fabric, domain2);
    S(fi_ops_domain);
    F(fi_ops_domain, size); F(fi_ops_domain, av_open); F(fi_ops_domain, cq_open); F(fi_ops_domain, endpoint);
    F(fi_ops_domain, scalable_ep); F(fi_ops_domain, cntr_open); F(fi_ops_domain, poll_open);
    F(fi_ops_domain, stx_ctx); F(fi_ops_domain, srx_ctx); F(fi_ops_domain, query_atomic);
    F(fi_ops_domain, query_collective); F(fi_ops_domain, endpoint2);
    S(fi_ops_mr); F(fi_ops_mr, size); F(fi_ops_mr, reg); F(fi_ops_mr, regv); F(fi_ops_mr, regattr);
    S(fi_ops_av);
    F(fi_ops_av, size); F(fi_ops_av, insert); F(fi_ops_av, insertsvc); F(fi_ops_av, insertsym);
    F(fi_ops_av, remove); F(fi_ops_av, lookup); F(fi_ops_av, straddr); F(fi_ops_av, av_set);
    S(fi_ops_ep);
    F(fi_ops_ep, size); F(fi_ops_ep, cancel); F(fi_ops_ep, getopt); F(fi_ops_ep, setopt); F(fi_ops_ep, tx_ctx);
    F(fi_ops_ep, rx_ctx); F(fi_ops_ep, rx_size_left); F(fi_ops_ep, tx_size_left);
    S(fi_ops_cm);
    F(fi_ops_cm, size); F(fi_ops_cm, setname); F(fi_ops_cm, getname); F(fi_ops_cm, getpeer);
    F(fi_ops_cm, connect); F(fi_ops_cm, listen); F(fi_ops_cm, accept); F(fi_ops_cm, reject);
    F(fi_ops_cm, shutdown); F(fi_ops_cm, join);
    S(fi_ops_msg);
    F(fi_ops_msg, size); F(fi_ops_msg, recv); F(fi_ops_msg, recvv); F(fi_ops_msg, recvmsg); F(fi_ops_msg, send);
    F(fi_ops_msg, sendv); F(fi_ops_msg, sendmsg); F(fi_ops_msg, inject); F(fi_ops_msg, senddata);
    F(fi_ops_msg, injectdata);
    S(fi_ops_rma);
    F(fi_ops_rma, size); F(fi_ops_rma, read); F(fi_ops_rma, readv); F(fi_ops_rma, readmsg); F(fi_ops_rma, write);
    F(fi_ops_rma, writev); F(fi_ops_rma, writemsg); F(fi_ops_rma, inject); F(fi_ops_rma, writedata);
    F(fi_ops_rma, injectdata);
    S(fi_ops_atomic);
    F(fi_ops_atomic, size); F(fi_ops_atomic, write); F(fi_ops_atomic, writev); F(fi_ops_atomic, writemsg);
    F(fi_ops_atomic, inject); F(fi_ops_atomic, readwrite); F(fi_ops_atomic, readwritev);
    F(fi_ops_atomic, readwritemsg); F(fi_ops_atomic, compwrite); F(fi_ops_atomic, compwritev);
    F(fi_ops_atomic, compwritemsg); F(fi_ops_atomic, writevalid); F(fi_ops_atomic, readwritevalid);
    F(fi_ops_atomic, compwritevalid);
    S(fi_ops_cq);
    F(fi_ops_cq, size); F(fi_ops_cq, read); F(fi_ops_cq, readfrom); F(fi_ops_cq, readerr); F(fi_ops_cq, sread);
    F(fi_ops_cq, sreadfrom); F(fi_ops_cq, signal); F(fi_ops_cq, strerror);
}

static void constants(void) {
    C(FI_MAJOR_VERSION); C(FI_MINOR_VERSION);

    /* capabilities and operation flags (fabric.h) */
    C(FI_MSG); C(FI_RMA); C(FI_TAGGED); C(FI_ATOMIC); C(FI_MULTICAST); C(FI_COLLECTIVE);
    C(FI_READ); C(FI_WRITE); C(FI_RECV); C(FI_SEND); C(FI_TRANSMIT); C(FI_REMOTE_READ); C(FI_REMOTE_WRITE);
    C(FI_MULTI_RECV); C(FI_REMOTE_CQ_DATA); C(FI_MORE); C(FI_PEEK); C(FI_TRIGGER); C(FI_FENCE); C(FI_PRIORITY);
    C(FI_COMPLETION); C(FI_INJECT); C(FI_INJECT_COMPLETE); C(FI_TRANSMIT_COMPLETE); C(FI_DELIVERY_COMPLETE);
    C(FI_AFFINITY); C(FI_COMMIT_COMPLETE); C(FI_MATCH_COMPLETE);
    C(FI_HMEM_HOST_ALLOC); C(FI_HMEM_DEVICE_ONLY); C(FI_HMEM); C(FI_VARIABLE_MSG); C(FI_RMA_PMEM);
    C(FI_SOURCE_ERR); C(FI_LOCAL_COMM); C(FI_REMOTE_COMM); C(FI_SHARED_AV); C(FI_PROV_ATTR_ONLY);
    C(FI_NUMERICHOST); C(FI_RMA_EVENT); C(FI_SOURCE); C(FI_NAMED_RX_CTX); C(FI_DIRECTED_RECV);
    C(FI_SELECTIVE_COMPLETION); C(FI_FETCH_ATOMIC); C(FI_COMPARE_ATOMIC);

    /* mode bits */
    C(FI_CONTEXT); C(FI_MSG_PREFIX); C(FI_ASYNC_IOV); C(FI_RX_CQ_DATA); C(FI_LOCAL_MR); C(FI_NOTIFY_FLAGS_ONLY);
    C(FI_RESTRICTED_COMP); C(FI_CONTEXT2); C(FI_BUFFERED_RECV);

    /* memory registration modes */
    C(FI_MR_UNSPEC); C(FI_MR_BASIC); C(FI_MR_SCALABLE); C(FI_MR_LOCAL); C(FI_MR_RAW); C(FI_MR_VIRT_ADDR);
    C(FI_MR_ALLOCATED); C(FI_MR_PROV_KEY); C(FI_MR_MMU_NOTIFY); C(FI_MR_RMA_EVENT); C(FI_MR_ENDPOINT);
    C(FI_MR_HMEM); C(FI_MR_COLLECTIVE);

    /* message / RMA / atomic ordering */
    C(FI_ORDER_NONE); C(FI_ORDER_RAR); C(FI_ORDER_RAW); C(FI_ORDER_RAS); C(FI_ORDER_WAR); C(FI_ORDER_WAW);
    C(FI_ORDER_WAS); C(FI_ORDER_SAR); C(FI_ORDER_SAW); C(FI_ORDER_SAS); C(FI_ORDER_STRICT); C(FI_ORDER_DATA);
    C(FI_ORDER_RMA_RAR); C(FI_ORDER_RMA_RAW); C(FI_ORDER_RMA_WAR); C(FI_ORDER_RMA_WAW);
    C(FI_ORDER_ATOMIC_RAR); C(FI_ORDER_ATOMIC_RAW); C(FI_ORDER_ATOMIC_WAR); C(FI_ORDER_ATOMIC_WAW);

    /* addressing */
    C(FI_FORMAT_UNSPEC); C(FI_SOCKADDR); C(FI_SOCKADDR_IN); C(FI_SOCKADDR_IN6); C(FI_SOCKADDR_IB);
    C(FI_ADDR_PSMX); C(FI_ADDR_GNI); C(FI_ADDR_BGQ); C(FI_ADDR_MLX); C(FI_ADDR_STR); C(FI_ADDR_PSMX2);
    C(FI_ADDR_IB_UD); C(FI_ADDR_EFA); C(FI_ADDR_PSMX3); C(FI_ADDR_OPX); C(FI_ADDR_CXI);
    C(FI_ADDR_UNSPEC); C(FI_ADDR_NOTAVAIL); C(FI_KEY_NOTAVAIL);

    /* enums of the attribute structs */
    C(FI_AV_UNSPEC); C(FI_AV_MAP); C(FI_AV_TABLE);
    C(FI_PROGRESS_UNSPEC); C(FI_PROGRESS_AUTO); C(FI_PROGRESS_MANUAL);
    C(FI_THREAD_UNSPEC); C(FI_THREAD_SAFE); C(FI_THREAD_FID); C(FI_THREAD_DOMAIN); C(FI_THREAD_COMPLETION);
    C(FI_THREAD_ENDPOINT);
    C(FI_RM_UNSPEC); C(FI_RM_DISABLED); C(FI_RM_ENABLED);
    C(FI_EP_UNSPEC); C(FI_EP_MSG); C(FI_EP_DGRAM); C(FI_EP_RDM); C(FI_EP_SOCK_STREAM); C(FI_EP_SOCK_DGRAM);
    C(FI_CQ_FORMAT_UNSPEC); C(FI_CQ_FORMAT_CONTEXT); C(FI_CQ_FORMAT_MSG); C(FI_CQ_FORMAT_DATA);
    C(FI_CQ_FORMAT_TAGGED);
    C(FI_CQ_COND_NONE); C(FI_CQ_COND_THRESHOLD);
    C(FI_WAIT_NONE); C(FI_WAIT_UNSPEC); C(FI_WAIT_SET); C(FI_WAIT_FD); C(FI_WAIT_MUTEX_COND); C(FI_WAIT_YIELD);
    C(FI_WAIT_POLLFD);
    C(FI_HMEM_SYSTEM); C(FI_HMEM_CUDA); C(FI_HMEM_ROCR); C(FI_HMEM_ZE); C(FI_HMEM_NEURON); C(FI_HMEM_SYNAPSEAI);

    /* fid classes */
    C(FI_CLASS_UNSPEC); C(FI_CLASS_FABRIC); C(FI_CLASS_DOMAIN); C(FI_CLASS_EP); C(FI_CLASS_SEP);
    C(FI_CLASS_RX_CTX); C(FI_CLASS_SRX_CTX); C(FI_CLASS_TX_CTX); C(FI_CLASS_STX_CTX); C(FI_CLASS_PEP);
    C(FI_CLASS_INTERFACE); C(FI_CLASS_AV); C(FI_CLASS_MR); C(FI_CLASS_EQ); C(FI_CLASS_CQ); C(FI_CLASS_CNTR);
    C(FI_CLASS_WAIT); C(FI_CLASS_POLL); C(FI_CLASS_CONNREQ); C(FI_CLASS_MC); C(FI_CLASS_NIC);

    /* fi_control commands */
    C(FI_GETFIDFLAG); C(FI_SETFIDFLAG); C(FI_GETOPSFLAG); C(FI_SETOPSFLAG); C(FI_ALIAS); C(FI_GETWAIT);
    C(FI_ENABLE); C(FI_BACKLOG); C(FI_GET_RAW_MR); C(FI_MAP_RAW_MR); C(FI_UNMAP_KEY); C(FI_REFRESH);
    C(FI_DUP); C(FI_GETWAITOBJ);

    /* bind flags */
    C(FI_REG_MR);

    /* endpoint options */
    C(FI_OPT_ENDPOINT);
    C(FI_OPT_MIN_MULTI_RECV); C(FI_OPT_CM_DATA_SIZE); C(FI_OPT_BUFFERED_MIN); C(FI_OPT_BUFFERED_LIMIT);
    C(FI_OPT_SEND_BUF_SIZE); C(FI_OPT_RECV_BUF_SIZE); C(FI_OPT_TX_SIZE); C(FI_OPT_RX_SIZE);
    C(FI_OPT_FI_HMEM_P2P);

    /* atomics */
    C(FI_INT8); C(FI_UINT8); C(FI_INT16); C(FI_UINT16); C(FI_INT32); C(FI_UINT32); C(FI_INT64); C(FI_UINT64);
    C(FI_FLOAT); C(FI_DOUBLE); C(FI_FLOAT_COMPLEX); C(FI_DOUBLE_COMPLEX); C(FI_LONG_DOUBLE);
    C(FI_LONG_DOUBLE_COMPLEX); C(FI_DATATYPE_LAST); C(FI_INT128); C(FI_UINT128);
    C(FI_MIN); C(FI_MAX); C(FI_SUM); C(FI_PROD); C(FI_LOR); C(FI_LAND); C(FI_BOR); C(FI_BAND); C(FI_LXOR);
    C(FI_BXOR); C(FI_ATOMIC_READ); C(FI_ATOMIC_WRITE); C(FI_CSWAP); C(FI_CSWAP_NE); C(FI_CSWAP_LE);
    C(FI_CSWAP_LT); C(FI_CSWAP_GE); C(FI_CSWAP_GT); C(FI_MSWAP); C(FI_ATOMIC_OP_LAST);

    /* fi_tostr types */
    C(FI_TYPE_INFO); C(FI_TYPE_EP_TYPE); C(FI_TYPE_CAPS); C(FI_TYPE_OP_FLAGS); C(FI_TYPE_ADDR_FORMAT);
    C(FI_TYPE_TX_ATTR); C(FI_TYPE_RX_ATTR); C(FI_TYPE_EP_ATTR); C(FI_TYPE_DOMAIN_ATTR); C(FI_TYPE_FABRIC_ATTR);
    C(FI_TYPE_THREADING); C(FI_TYPE_PROGRESS); C(FI_TYPE_PROTOCOL); C(FI_TYPE_MSG_ORDER); C(FI_TYPE_MODE);
    C(FI_TYPE_AV_TYPE); C(FI_TYPE_ATOMIC_TYPE); C(FI_TYPE_ATOMIC_OP); C(FI_TYPE_VERSION); C(FI_TYPE_EQ_EVENT);
    C(FI_TYPE_CQ_EVENT_FLAGS); C(FI_TYPE_MR_MODE); C(FI_TYPE_OP_TYPE); C(FI_TYPE_FID); C(FI_TYPE_COLLECTIVE_OP);
    C(FI_TYPE_HMEM_IFACE); C(FI_TYPE_CQ_FORMAT); C(FI_TYPE_LOG_LEVEL); C(FI_TYPE_LOG_SUBSYS);

    /* error codes (positive, as fi_strerror and fi_cq_err_entry.err use them) */
    C(FI_SUCCESS); C(FI_EPERM); C(FI_ENOENT); C(FI_EINTR); C(FI_EIO); C(FI_E2BIG); C(FI_EBADF); C(FI_EAGAIN);
    C(FI_ENOMEM); C(FI_EACCES); C(FI_EFAULT); C(FI_EBUSY); C(FI_ENODEV); C(FI_EINVAL); C(FI_EMFILE);
    C(FI_ENOSPC); C(FI_ENOSYS); C(FI_EWOULDBLOCK); C(FI_ENOMSG); C(FI_ENODATA); C(FI_EOVERFLOW);
    C(FI_EMSGSIZE); C(FI_ENOPROTOOPT); C(FI_EOPNOTSUPP); C(FI_EADDRINUSE); C(FI_EADDRNOTAVAIL);
    C(FI_ENETDOWN); C(FI_ENETUNREACH); C(FI_ECONNABORTED); C(FI_ECONNRESET); C(FI_ENOBUFS); C(FI_EISCONN);
    C(FI_ENOTCONN); C(FI_ESHUTDOWN); C(FI_ETIMEDOUT); C(FI_ECONNREFUSED); C(FI_EHOSTDOWN); C(FI_EHOSTUNREACH);
    C(FI_EALREADY); C(FI_EINPROGRESS); C(FI_EREMOTEIO); C(FI_ECANCELED); C(FI_EKEYREJECTED);
    C(FI_ERRNO_OFFSET); C(FI_EOTHER); C(FI_ETOOSMALL); C(FI_EOPBADSTATE); C(FI_EAVAIL); C(FI_EBADFLAGS);
    C(FI_ENOEQ); C(FI_EDOMAIN); C(FI_ENOCQ); C(FI_ECRC); C(FI_ETRUNC); C(FI_ENOKEY); C(FI_ENOAV);
    C(FI_EOVERRUN); C(FI_ENORX);
}

int main(void) {
    printf("version %d %d\n", FI_MAJOR_VERSION, FI_MINOR_VERSION);
    structs();
    constants();
    return 0;
}
