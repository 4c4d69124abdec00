package dev.rivulet.rdma.verbs.sys;

/**
 * The constants of libibverbs and librdmacm the binding uses, under their C names so that a grep finds both sides.
 *
 * <p>Values are those of rdma-core 44's {@code infiniband/verbs.h} and {@code rdma/rdma_cma.h}; {@code VerbsAbiTest}
 * compares every field here with the output of a C probe compiled against the installed headers. All are C enums or
 * {@code int} flag words, so all are {@code int}.
 */
public final class VerbsConstants {

    private VerbsConstants() {
    }

    // ---- enum ibv_wc_status: the outcome of a work request, in a work completion
    public static final int IBV_WC_SUCCESS = 0;
    public static final int IBV_WC_LOC_LEN_ERR = 1;
    public static final int IBV_WC_LOC_QP_OP_ERR = 2;
    public static final int IBV_WC_LOC_EEC_OP_ERR = 3;
    public static final int IBV_WC_LOC_PROT_ERR = 4;
    public static final int IBV_WC_WR_FLUSH_ERR = 5;
    public static final int IBV_WC_MW_BIND_ERR = 6;
    public static final int IBV_WC_BAD_RESP_ERR = 7;
    public static final int IBV_WC_LOC_ACCESS_ERR = 8;
    public static final int IBV_WC_REM_INV_REQ_ERR = 9;
    public static final int IBV_WC_REM_ACCESS_ERR = 10;
    public static final int IBV_WC_REM_OP_ERR = 11;
    public static final int IBV_WC_RETRY_EXC_ERR = 12;
    public static final int IBV_WC_RNR_RETRY_EXC_ERR = 13;
    public static final int IBV_WC_LOC_RDD_VIOL_ERR = 14;
    public static final int IBV_WC_REM_INV_RD_REQ_ERR = 15;
    public static final int IBV_WC_REM_ABORT_ERR = 16;
    public static final int IBV_WC_INV_EECN_ERR = 17;
    public static final int IBV_WC_INV_EEC_STATE_ERR = 18;
    public static final int IBV_WC_FATAL_ERR = 19;
    public static final int IBV_WC_RESP_TIMEOUT_ERR = 20;
    public static final int IBV_WC_GENERAL_ERR = 21;
    public static final int IBV_WC_TM_ERR = 22;
    public static final int IBV_WC_TM_RNDV_INCOMPLETE = 23;

    // ---- enum ibv_wc_opcode (valid only for successful completions) and enum ibv_wc_flags
    public static final int IBV_WC_SEND = 0;
    public static final int IBV_WC_RDMA_WRITE = 1;
    public static final int IBV_WC_RDMA_READ = 2;
    public static final int IBV_WC_COMP_SWAP = 3;
    public static final int IBV_WC_FETCH_ADD = 4;
    public static final int IBV_WC_BIND_MW = 5;
    public static final int IBV_WC_LOCAL_INV = 6;
    public static final int IBV_WC_TSO = 7;
    public static final int IBV_WC_RECV = 1 << 7;
    public static final int IBV_WC_RECV_RDMA_WITH_IMM = IBV_WC_RECV + 1;
    public static final int IBV_WC_GRH = 1;
    public static final int IBV_WC_WITH_IMM = 1 << 1;
    public static final int IBV_WC_IP_CSUM_OK = 1 << 2;
    public static final int IBV_WC_WITH_INV = 1 << 3;

    // ---- enum ibv_wr_opcode and enum ibv_send_flags (ibv_send_wr.opcode, .send_flags)
    public static final int IBV_WR_RDMA_WRITE = 0;
    public static final int IBV_WR_RDMA_WRITE_WITH_IMM = 1;
    public static final int IBV_WR_SEND = 2;
    public static final int IBV_WR_SEND_WITH_IMM = 3;
    public static final int IBV_WR_RDMA_READ = 4;
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;
    public static final int IBV_WR_LOCAL_INV = 7;
    public static final int IBV_WR_BIND_MW = 8;
    public static final int IBV_WR_SEND_WITH_INV = 9;
    /** Process this request only after every earlier RDMA read and atomic of the queue pair has completed. */
    public static final int IBV_SEND_FENCE = 1;
    /** Generate a work completion for this request (the others complete silently, see selective signalling). */
    public static final int IBV_SEND_SIGNALED = 1 << 1;
    public static final int IBV_SEND_SOLICITED = 1 << 2;
    /** Copy the payload into the work queue entry at post time: the buffer is free once the post returns. */
    public static final int IBV_SEND_INLINE = 1 << 3;
    public static final int IBV_SEND_IP_CSUM = 1 << 4;

    // ---- enum ibv_access_flags (ibv_reg_mr, qp_access_flags)
    public static final int IBV_ACCESS_LOCAL_WRITE = 1;
    public static final int IBV_ACCESS_REMOTE_WRITE = 1 << 1;
    public static final int IBV_ACCESS_REMOTE_READ = 1 << 2;
    public static final int IBV_ACCESS_REMOTE_ATOMIC = 1 << 3;
    public static final int IBV_ACCESS_MW_BIND = 1 << 4;
    public static final int IBV_ACCESS_ZERO_BASED = 1 << 5;
    public static final int IBV_ACCESS_ON_DEMAND = 1 << 6;
    public static final int IBV_ACCESS_HUGETLB = 1 << 7;
    public static final int IBV_ACCESS_RELAXED_ORDERING = 1 << 20;
    /** Optional access bits: a library that does not know one ignores it instead of failing the registration. */
    public static final int IBV_ACCESS_OPTIONAL_RANGE = 0x3ff00000;

    // ---- enum ibv_qp_type, enum ibv_qp_state, enum ibv_mig_state
    public static final int IBV_QPT_RC = 2;
    public static final int IBV_QPT_UC = 3;
    public static final int IBV_QPT_UD = 4;
    public static final int IBV_QPS_RESET = 0;
    public static final int IBV_QPS_INIT = 1;
    public static final int IBV_QPS_RTR = 2;
    public static final int IBV_QPS_RTS = 3;
    public static final int IBV_QPS_SQD = 4;
    public static final int IBV_QPS_SQE = 5;
    public static final int IBV_QPS_ERR = 6;
    public static final int IBV_MIG_MIGRATED = 0;

    // ---- enum ibv_qp_attr_mask (ibv_modify_qp)
    public static final int IBV_QP_STATE = 1;
    public static final int IBV_QP_CUR_STATE = 1 << 1;
    public static final int IBV_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2;
    public static final int IBV_QP_ACCESS_FLAGS = 1 << 3;
    public static final int IBV_QP_PKEY_INDEX = 1 << 4;
    public static final int IBV_QP_PORT = 1 << 5;
    public static final int IBV_QP_QKEY = 1 << 6;
    public static final int IBV_QP_AV = 1 << 7;
    public static final int IBV_QP_PATH_MTU = 1 << 8;
    public static final int IBV_QP_TIMEOUT = 1 << 9;
    public static final int IBV_QP_RETRY_CNT = 1 << 10;
    public static final int IBV_QP_RNR_RETRY = 1 << 11;
    public static final int IBV_QP_RQ_PSN = 1 << 12;
    public static final int IBV_QP_MAX_QP_RD_ATOMIC = 1 << 13;
    public static final int IBV_QP_ALT_PATH = 1 << 14;
    public static final int IBV_QP_MIN_RNR_TIMER = 1 << 15;
    public static final int IBV_QP_SQ_PSN = 1 << 16;
    public static final int IBV_QP_MAX_DEST_RD_ATOMIC = 1 << 17;
    public static final int IBV_QP_PATH_MIG_STATE = 1 << 18;
    public static final int IBV_QP_CAP = 1 << 19;
    public static final int IBV_QP_DEST_QPN = 1 << 20;
    public static final int IBV_QP_RATE_LIMIT = 1 << 25;

    // ---- enum ibv_mtu, enum ibv_port_state, link layers, enum ibv_atomic_cap
    public static final int IBV_MTU_256 = 1;
    public static final int IBV_MTU_512 = 2;
    public static final int IBV_MTU_1024 = 3;
    public static final int IBV_MTU_2048 = 4;
    public static final int IBV_MTU_4096 = 5;
    public static final int IBV_PORT_NOP = 0;
    public static final int IBV_PORT_DOWN = 1;
    public static final int IBV_PORT_INIT = 2;
    public static final int IBV_PORT_ARMED = 3;
    public static final int IBV_PORT_ACTIVE = 4;
    public static final int IBV_PORT_ACTIVE_DEFER = 5;
    public static final int IBV_LINK_LAYER_UNSPECIFIED = 0;
    public static final int IBV_LINK_LAYER_INFINIBAND = 1;
    public static final int IBV_LINK_LAYER_ETHERNET = 2;
    /** The device has no remote atomics. */
    public static final int IBV_ATOMIC_NONE = 0;
    /** Atomics are atomic among the device's own operations (not against the host CPU). */
    public static final int IBV_ATOMIC_HCA = 1;
    /** Atomics are atomic against every agent, the host CPU included. */
    public static final int IBV_ATOMIC_GLOB = 2;
    /** Size of {@code ibv_device.name}, the longest device name plus its NUL. */
    public static final int IBV_SYSFS_NAME_MAX = 64;

    // ---- librdmacm: enum rdma_cm_event_type
    public static final int RDMA_CM_EVENT_ADDR_RESOLVED = 0;
    public static final int RDMA_CM_EVENT_ADDR_ERROR = 1;
    public static final int RDMA_CM_EVENT_ROUTE_RESOLVED = 2;
    public static final int RDMA_CM_EVENT_ROUTE_ERROR = 3;
    public static final int RDMA_CM_EVENT_CONNECT_REQUEST = 4;
    public static final int RDMA_CM_EVENT_CONNECT_RESPONSE = 5;
    public static final int RDMA_CM_EVENT_CONNECT_ERROR = 6;
    public static final int RDMA_CM_EVENT_UNREACHABLE = 7;
    public static final int RDMA_CM_EVENT_REJECTED = 8;
    public static final int RDMA_CM_EVENT_ESTABLISHED = 9;
    public static final int RDMA_CM_EVENT_DISCONNECTED = 10;
    public static final int RDMA_CM_EVENT_DEVICE_REMOVAL = 11;
    public static final int RDMA_CM_EVENT_MULTICAST_JOIN = 12;
    public static final int RDMA_CM_EVENT_MULTICAST_ERROR = 13;
    public static final int RDMA_CM_EVENT_ADDR_CHANGE = 14;
    public static final int RDMA_CM_EVENT_TIMEWAIT_EXIT = 15;

    // ---- librdmacm: enum rdma_port_space and connection limits
    public static final int RDMA_PS_IPOIB = 0x0002;
    /** Reliable-connected port space: RC queue pairs, addressed by IP and port like TCP (its own port numbers). */
    public static final int RDMA_PS_TCP = 0x0106;
    public static final int RDMA_PS_UDP = 0x0111;
    public static final int RDMA_PS_IB = 0x013F;
    public static final int RDMA_MAX_RESP_RES = 0xFF;
    public static final int RDMA_MAX_INIT_DEPTH = 0xFF;
}
