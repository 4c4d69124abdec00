package dev.rivulet.rdma.fabric.sys;

/**
 * libfabric's constants, under their C names so that a grep finds both sides.
 *
 * <p>Values are those of the libfabric 1.17 headers ({@code rdma/fabric.h}, {@code fi_domain.h}, {@code fi_eq.h},
 * {@code fi_endpoint.h}, {@code fi_errno.h}); {@code LibfabricAbiTest} compares every field here with the output of
 * a C probe compiled against the installed headers. Types follow the C field they go into: 64-bit flag words
 * ({@code caps}, {@code mode}, op flags, {@code fi_addr_t}) are {@code long}; enums, {@code mr_mode} and error
 * numbers are {@code int}.
 *
 * <p>Error numbers are positive, as {@code fi_strerror} and {@code fi_cq_err_entry.err} use them; calls
 * <em>return</em> them negated ({@code -FI_EAGAIN}). The errno-mapped ones carry Linux values.
 */
public final class FiConstants {

    private FiConstants() {
    }

    // ---- version of the headers this binding's layouts describe (fabric.h)
    public static final int FI_MAJOR_VERSION = 1;
    public static final int FI_MINOR_VERSION = 17;

    // ---- capabilities (fi_info.caps, tx/rx_attr.caps) and operation flags; several bits are shared by both
    public static final long FI_MSG = 1L << 1;
    public static final long FI_RMA = 1L << 2;
    public static final long FI_TAGGED = 1L << 3;
    public static final long FI_ATOMIC = 1L << 4;
    public static final long FI_MULTICAST = 1L << 5;
    public static final long FI_COLLECTIVE = 1L << 6;
    public static final long FI_READ = 1L << 8;
    public static final long FI_WRITE = 1L << 9;
    public static final long FI_RECV = 1L << 10;
    public static final long FI_SEND = 1L << 11;
    public static final long FI_TRANSMIT = FI_SEND;
    public static final long FI_REMOTE_READ = 1L << 12;
    public static final long FI_REMOTE_WRITE = 1L << 13;
    public static final long FI_MULTI_RECV = 1L << 16;
    public static final long FI_REMOTE_CQ_DATA = 1L << 17;
    public static final long FI_MORE = 1L << 18;
    public static final long FI_PEEK = 1L << 19;
    public static final long FI_TRIGGER = 1L << 20;
    public static final long FI_FENCE = 1L << 21;
    public static final long FI_PRIORITY = 1L << 22;
    public static final long FI_COMPLETION = 1L << 24;
    public static final long FI_INJECT = 1L << 25;
    public static final long FI_INJECT_COMPLETE = 1L << 26;
    public static final long FI_TRANSMIT_COMPLETE = 1L << 27;
    public static final long FI_DELIVERY_COMPLETE = 1L << 28;
    public static final long FI_AFFINITY = 1L << 29;
    public static final long FI_COMMIT_COMPLETE = 1L << 30;
    public static final long FI_MATCH_COMPLETE = 1L << 31;
    public static final long FI_HMEM_HOST_ALLOC = 1L << 45;
    public static final long FI_HMEM_DEVICE_ONLY = 1L << 46;
    public static final long FI_HMEM = 1L << 47;
    public static final long FI_VARIABLE_MSG = 1L << 48;
    public static final long FI_RMA_PMEM = 1L << 49;
    public static final long FI_SOURCE_ERR = 1L << 50;
    public static final long FI_LOCAL_COMM = 1L << 51;
    public static final long FI_REMOTE_COMM = 1L << 52;
    public static final long FI_SHARED_AV = 1L << 53;
    public static final long FI_PROV_ATTR_ONLY = 1L << 54;
    public static final long FI_NUMERICHOST = 1L << 55;
    public static final long FI_RMA_EVENT = 1L << 56;
    public static final long FI_SOURCE = 1L << 57;
    public static final long FI_NAMED_RX_CTX = 1L << 58;
    public static final long FI_DIRECTED_RECV = 1L << 59;
    /** {@code fi_ep_bind} flag for a CQ: only operations posted with {@link #FI_COMPLETION} complete successfully. */
    public static final long FI_SELECTIVE_COMPLETION = 1L << 59;
    /** {@code fi_domain_bind} flag (same bit as {@link #FI_SELECTIVE_COMPLETION}, different call). */
    public static final long FI_REG_MR = 1L << 59;
    /** Atomic query flags ({@code fi_query_atomic}). */
    public static final long FI_FETCH_ATOMIC = 1L << 58;
    public static final long FI_COMPARE_ATOMIC = 1L << 59;

    // ---- mode bits (fi_info.mode, tx/rx_attr.mode): obligations the provider places on the application
    /**
     * Every operation's {@code context} must point to a 32-byte {@code fi_context} owned by the provider until
     * completion.
     */
    public static final long FI_CONTEXT = 1L << 59;
    public static final long FI_MSG_PREFIX = 1L << 58;
    public static final long FI_ASYNC_IOV = 1L << 57;
    public static final long FI_RX_CQ_DATA = 1L << 56;
    public static final long FI_LOCAL_MR = 1L << 55;
    public static final long FI_NOTIFY_FLAGS_ONLY = 1L << 54;
    public static final long FI_RESTRICTED_COMP = 1L << 53;
    /** Like {@link #FI_CONTEXT} with 64 bytes ({@link FiContext2}). */
    public static final long FI_CONTEXT2 = 1L << 52;
    public static final long FI_BUFFERED_RECV = 1L << 51;

    // ---- memory registration modes (fi_domain_attr.mr_mode, an int). Offer in hints what you can honour.
    public static final int FI_MR_UNSPEC = 0;
    /** Legacy (requests older than 1.5): equivalent to VIRT_ADDR | ALLOCATED | PROV_KEY. */
    public static final int FI_MR_BASIC = 1;
    public static final int FI_MR_SCALABLE = 2;
    /** Local buffers must be registered and their {@code fi_mr_desc} passed as {@code desc}. */
    public static final int FI_MR_LOCAL = 1 << 2;
    public static final int FI_MR_RAW = 1 << 3;
    /** RMA target addresses are virtual addresses, not offsets into the region. */
    public static final int FI_MR_VIRT_ADDR = 1 << 4;
    /** Registered pages must be allocated (touched) at registration time. */
    public static final int FI_MR_ALLOCATED = 1 << 5;
    /**
     * The provider chooses keys: read {@code fi_mr_key}; otherwise keys requested by the app must be unique per
     * domain.
     */
    public static final int FI_MR_PROV_KEY = 1 << 6;
    public static final int FI_MR_MMU_NOTIFY = 1 << 7;
    public static final int FI_MR_RMA_EVENT = 1 << 8;
    /** Regions are per endpoint: {@code fi_mr_bind} to the endpoint, then {@code fi_mr_enable}, before use. */
    public static final int FI_MR_ENDPOINT = 1 << 9;
    public static final int FI_MR_HMEM = 1 << 10;
    public static final int FI_MR_COLLECTIVE = 1 << 11;

    // ---- ordering (tx/rx_attr.msg_order, comp_order)
    public static final long FI_ORDER_NONE = 0L;
    public static final long FI_ORDER_RAR = 1L;
    public static final long FI_ORDER_RAW = 1L << 1;
    public static final long FI_ORDER_RAS = 1L << 2;
    public static final long FI_ORDER_WAR = 1L << 3;
    public static final long FI_ORDER_WAW = 1L << 4;
    public static final long FI_ORDER_WAS = 1L << 5;
    public static final long FI_ORDER_SAR = 1L << 6;
    public static final long FI_ORDER_SAW = 1L << 7;
    public static final long FI_ORDER_SAS = 1L << 8;
    public static final long FI_ORDER_STRICT = 0x1FFL;
    public static final long FI_ORDER_DATA = 1L << 16;
    public static final long FI_ORDER_RMA_RAR = 1L << 32;
    public static final long FI_ORDER_RMA_RAW = 1L << 33;
    public static final long FI_ORDER_RMA_WAR = 1L << 34;
    public static final long FI_ORDER_RMA_WAW = 1L << 35;
    public static final long FI_ORDER_ATOMIC_RAR = 1L << 36;
    public static final long FI_ORDER_ATOMIC_RAW = 1L << 37;
    public static final long FI_ORDER_ATOMIC_WAR = 1L << 38;
    public static final long FI_ORDER_ATOMIC_WAW = 1L << 39;

    // ---- address formats (fi_info.addr_format)
    public static final int FI_FORMAT_UNSPEC = 0;
    public static final int FI_SOCKADDR = 1;
    public static final int FI_SOCKADDR_IN = 2;
    public static final int FI_SOCKADDR_IN6 = 3;
    public static final int FI_SOCKADDR_IB = 4;
    public static final int FI_ADDR_PSMX = 5;
    public static final int FI_ADDR_GNI = 6;
    public static final int FI_ADDR_BGQ = 7;
    public static final int FI_ADDR_MLX = 8;
    public static final int FI_ADDR_STR = 9;
    public static final int FI_ADDR_PSMX2 = 10;
    public static final int FI_ADDR_IB_UD = 11;
    public static final int FI_ADDR_EFA = 12;
    public static final int FI_ADDR_PSMX3 = 13;
    public static final int FI_ADDR_OPX = 14;
    public static final int FI_ADDR_CXI = 15;

    /** {@code fi_addr_t} meaning "any source" for receives (and the value of an unused AV slot). */
    public static final long FI_ADDR_UNSPEC = -1L;
    public static final long FI_ADDR_NOTAVAIL = -1L;
    public static final long FI_KEY_NOTAVAIL = -1L;

    // ---- enum fi_av_type
    public static final int FI_AV_UNSPEC = 0;
    public static final int FI_AV_MAP = 1;
    public static final int FI_AV_TABLE = 2;

    // ---- enum fi_progress
    public static final int FI_PROGRESS_UNSPEC = 0;
    public static final int FI_PROGRESS_AUTO = 1;
    /** Data moves only while the application calls into the provider (CQ reads), on targets too. */
    public static final int FI_PROGRESS_MANUAL = 2;

    // ---- enum fi_threading
    public static final int FI_THREAD_UNSPEC = 0;
    public static final int FI_THREAD_SAFE = 1;
    public static final int FI_THREAD_FID = 2;
    public static final int FI_THREAD_DOMAIN = 3;
    public static final int FI_THREAD_COMPLETION = 4;
    public static final int FI_THREAD_ENDPOINT = 5;

    // ---- enum fi_resource_mgmt
    public static final int FI_RM_UNSPEC = 0;
    public static final int FI_RM_DISABLED = 1;
    public static final int FI_RM_ENABLED = 2;

    // ---- enum fi_ep_type
    public static final int FI_EP_UNSPEC = 0;
    public static final int FI_EP_MSG = 1;
    public static final int FI_EP_DGRAM = 2;
    public static final int FI_EP_RDM = 3;
    public static final int FI_EP_SOCK_STREAM = 4;
    public static final int FI_EP_SOCK_DGRAM = 5;

    // ---- enum fi_cq_format: selects the entry type fi_cq_read writes
    public static final int FI_CQ_FORMAT_UNSPEC = 0;
    public static final int FI_CQ_FORMAT_CONTEXT = 1;
    public static final int FI_CQ_FORMAT_MSG = 2;
    /** Entries are {@link FiCqDataEntry} (40 bytes). */
    public static final int FI_CQ_FORMAT_DATA = 3;
    public static final int FI_CQ_FORMAT_TAGGED = 4;

    // ---- enum fi_cq_wait_cond
    public static final int FI_CQ_COND_NONE = 0;
    public static final int FI_CQ_COND_THRESHOLD = 1;

    // ---- enum fi_wait_obj
    /**
     * No wait object: the CQ can only be polled; {@code fi_cq_sread}/{@code fi_cq_signal} are illegal (1.17 crashes).
     */
    public static final int FI_WAIT_NONE = 0;
    public static final int FI_WAIT_UNSPEC = 1;
    public static final int FI_WAIT_SET = 2;
    public static final int FI_WAIT_FD = 3;
    public static final int FI_WAIT_MUTEX_COND = 4;
    /** Busy wait; 1.17 shm grants it for {@code FI_WAIT_UNSPEC}, and its {@code fi_cq_sread} ignores the timeout. */
    public static final int FI_WAIT_YIELD = 5;
    public static final int FI_WAIT_POLLFD = 6;

    // ---- enum fi_hmem_iface (fi_mr_attr.iface)
    public static final int FI_HMEM_SYSTEM = 0;
    public static final int FI_HMEM_CUDA = 1;
    public static final int FI_HMEM_ROCR = 2;
    public static final int FI_HMEM_ZE = 3;
    public static final int FI_HMEM_NEURON = 4;
    public static final int FI_HMEM_SYNAPSEAI = 5;

    // ---- fid classes (fid.fclass)
    public static final int FI_CLASS_UNSPEC = 0;
    public static final int FI_CLASS_FABRIC = 1;
    public static final int FI_CLASS_DOMAIN = 2;
    public static final int FI_CLASS_EP = 3;
    public static final int FI_CLASS_SEP = 4;
    public static final int FI_CLASS_RX_CTX = 5;
    public static final int FI_CLASS_SRX_CTX = 6;
    public static final int FI_CLASS_TX_CTX = 7;
    public static final int FI_CLASS_STX_CTX = 8;
    public static final int FI_CLASS_PEP = 9;
    public static final int FI_CLASS_INTERFACE = 10;
    public static final int FI_CLASS_AV = 11;
    public static final int FI_CLASS_MR = 12;
    public static final int FI_CLASS_EQ = 13;
    public static final int FI_CLASS_CQ = 14;
    public static final int FI_CLASS_CNTR = 15;
    public static final int FI_CLASS_WAIT = 16;
    public static final int FI_CLASS_POLL = 17;
    public static final int FI_CLASS_CONNREQ = 18;
    public static final int FI_CLASS_MC = 19;
    public static final int FI_CLASS_NIC = 20;

    // ---- fi_control commands
    public static final int FI_GETFIDFLAG = 0;
    public static final int FI_SETFIDFLAG = 1;
    public static final int FI_GETOPSFLAG = 2;
    public static final int FI_SETOPSFLAG = 3;
    public static final int FI_ALIAS = 4;
    /** {@code arg} receives the wait object, e.g. an {@code int} fd for {@link #FI_WAIT_FD}. */
    public static final int FI_GETWAIT = 5;
    public static final int FI_ENABLE = 6;
    public static final int FI_BACKLOG = 7;
    public static final int FI_GET_RAW_MR = 8;
    public static final int FI_MAP_RAW_MR = 9;
    public static final int FI_UNMAP_KEY = 10;
    public static final int FI_REFRESH = 14;
    public static final int FI_DUP = 15;
    public static final int FI_GETWAITOBJ = 16;

    // ---- fi_setopt / fi_getopt
    public static final int FI_OPT_ENDPOINT = 0;
    public static final int FI_OPT_MIN_MULTI_RECV = 0;
    public static final int FI_OPT_CM_DATA_SIZE = 1;
    public static final int FI_OPT_BUFFERED_MIN = 2;
    public static final int FI_OPT_BUFFERED_LIMIT = 3;
    public static final int FI_OPT_SEND_BUF_SIZE = 4;
    public static final int FI_OPT_RECV_BUF_SIZE = 5;
    public static final int FI_OPT_TX_SIZE = 6;
    public static final int FI_OPT_RX_SIZE = 7;
    public static final int FI_OPT_FI_HMEM_P2P = 8;

    // ---- enum fi_datatype (atomics)
    public static final int FI_INT8 = 0;
    public static final int FI_UINT8 = 1;
    public static final int FI_INT16 = 2;
    public static final int FI_UINT16 = 3;
    public static final int FI_INT32 = 4;
    public static final int FI_UINT32 = 5;
    public static final int FI_INT64 = 6;
    public static final int FI_UINT64 = 7;
    public static final int FI_FLOAT = 8;
    public static final int FI_DOUBLE = 9;
    public static final int FI_FLOAT_COMPLEX = 10;
    public static final int FI_DOUBLE_COMPLEX = 11;
    public static final int FI_LONG_DOUBLE = 12;
    public static final int FI_LONG_DOUBLE_COMPLEX = 13;
    /** One past the last point-to-point datatype of the original enum; 128-bit types reuse the value. */
    public static final int FI_DATATYPE_LAST = 14;
    public static final int FI_INT128 = 14;
    public static final int FI_UINT128 = 15;

    // ---- enum fi_op (atomics)
    public static final int FI_MIN = 0;
    public static final int FI_MAX = 1;
    public static final int FI_SUM = 2;
    public static final int FI_PROD = 3;
    public static final int FI_LOR = 4;
    public static final int FI_LAND = 5;
    public static final int FI_BOR = 6;
    public static final int FI_BAND = 7;
    public static final int FI_LXOR = 8;
    public static final int FI_BXOR = 9;
    public static final int FI_ATOMIC_READ = 10;
    public static final int FI_ATOMIC_WRITE = 11;
    public static final int FI_CSWAP = 12;
    public static final int FI_CSWAP_NE = 13;
    public static final int FI_CSWAP_LE = 14;
    public static final int FI_CSWAP_LT = 15;
    public static final int FI_CSWAP_GE = 16;
    public static final int FI_CSWAP_GT = 17;
    public static final int FI_MSWAP = 18;
    public static final int FI_ATOMIC_OP_LAST = 19;

    // ---- enum fi_type (fi_tostr)
    public static final int FI_TYPE_INFO = 0;
    public static final int FI_TYPE_EP_TYPE = 1;
    public static final int FI_TYPE_CAPS = 2;
    public static final int FI_TYPE_OP_FLAGS = 3;
    public static final int FI_TYPE_ADDR_FORMAT = 4;
    public static final int FI_TYPE_TX_ATTR = 5;
    public static final int FI_TYPE_RX_ATTR = 6;
    public static final int FI_TYPE_EP_ATTR = 7;
    public static final int FI_TYPE_DOMAIN_ATTR = 8;
    public static final int FI_TYPE_FABRIC_ATTR = 9;
    public static final int FI_TYPE_THREADING = 10;
    public static final int FI_TYPE_PROGRESS = 11;
    public static final int FI_TYPE_PROTOCOL = 12;
    public static final int FI_TYPE_MSG_ORDER = 13;
    public static final int FI_TYPE_MODE = 14;
    public static final int FI_TYPE_AV_TYPE = 15;
    public static final int FI_TYPE_ATOMIC_TYPE = 16;
    public static final int FI_TYPE_ATOMIC_OP = 17;
    public static final int FI_TYPE_VERSION = 18;
    public static final int FI_TYPE_EQ_EVENT = 19;
    public static final int FI_TYPE_CQ_EVENT_FLAGS = 20;
    public static final int FI_TYPE_MR_MODE = 21;
    public static final int FI_TYPE_OP_TYPE = 22;
    public static final int FI_TYPE_FID = 23;
    public static final int FI_TYPE_COLLECTIVE_OP = 24;
    public static final int FI_TYPE_HMEM_IFACE = 25;
    public static final int FI_TYPE_CQ_FORMAT = 26;
    public static final int FI_TYPE_LOG_LEVEL = 27;
    public static final int FI_TYPE_LOG_SUBSYS = 28;

    // ---- error numbers (fi_errno.h): positive; calls return them negated
    public static final int FI_SUCCESS = 0;
    public static final int FI_EPERM = 1;
    public static final int FI_ENOENT = 2;
    public static final int FI_EINTR = 4;
    public static final int FI_EIO = 5;
    public static final int FI_E2BIG = 7;
    public static final int FI_EBADF = 9;
    /** Not an error: the provider is out of queue space or buffers; drive both CQs, then retry the post. */
    public static final int FI_EAGAIN = 11;
    public static final int FI_ENOMEM = 12;
    public static final int FI_EACCES = 13;
    public static final int FI_EFAULT = 14;
    public static final int FI_EBUSY = 16;
    public static final int FI_ENODEV = 19;
    public static final int FI_EINVAL = 22;
    public static final int FI_EMFILE = 24;
    public static final int FI_ENOSPC = 28;
    /** Also what the binding returns when a provider leaves an ops-table slot empty. */
    public static final int FI_ENOSYS = 38;
    public static final int FI_EWOULDBLOCK = FI_EAGAIN;
    public static final int FI_ENOMSG = 42;
    /** {@code fi_getinfo}: no provider matches the hints. */
    public static final int FI_ENODATA = 61;
    public static final int FI_EOVERFLOW = 75;
    public static final int FI_EMSGSIZE = 90;
    public static final int FI_ENOPROTOOPT = 92;
    public static final int FI_EOPNOTSUPP = 95;
    public static final int FI_EADDRINUSE = 98;
    public static final int FI_EADDRNOTAVAIL = 99;
    public static final int FI_ENETDOWN = 100;
    public static final int FI_ENETUNREACH = 101;
    public static final int FI_ECONNABORTED = 103;
    public static final int FI_ECONNRESET = 104;
    public static final int FI_ENOBUFS = 105;
    public static final int FI_EISCONN = 106;
    public static final int FI_ENOTCONN = 107;
    public static final int FI_ESHUTDOWN = 108;
    public static final int FI_ETIMEDOUT = 110;
    public static final int FI_ECONNREFUSED = 111;
    public static final int FI_EHOSTDOWN = 112;
    public static final int FI_EHOSTUNREACH = 113;
    public static final int FI_EALREADY = 114;
    public static final int FI_EINPROGRESS = 115;
    public static final int FI_EREMOTEIO = 121;
    public static final int FI_ECANCELED = 125;
    public static final int FI_EKEYREJECTED = 129;
    public static final int FI_ERRNO_OFFSET = 256;
    public static final int FI_EOTHER = 256;
    /** The buffer is too small; the call wrote the size it needs (e.g. {@code fi_getname}). */
    public static final int FI_ETOOSMALL = 257;
    public static final int FI_EOPBADSTATE = 258;
    /** {@code fi_cq_read}: the next entry is an error, fetch it with {@code fi_cq_readerr}. */
    public static final int FI_EAVAIL = 259;
    public static final int FI_EBADFLAGS = 260;
    public static final int FI_ENOEQ = 261;
    public static final int FI_EDOMAIN = 262;
    public static final int FI_ENOCQ = 263;
    public static final int FI_ECRC = 264;
    public static final int FI_ETRUNC = 265;
    public static final int FI_ENOKEY = 266;
    public static final int FI_ENOAV = 267;
    public static final int FI_EOVERRUN = 268;
    public static final int FI_ENORX = 269;
}
