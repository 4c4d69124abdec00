package dev.rivulet.rio.uring.sys;

/**
 * Constants from {@code <linux/io_uring.h>} (linux-libc-dev 6.1 here; the running kernel may be newer, which adds
 * values but never changes these). Names are the C macro names so the ABI test can match them one to one; it
 * fails on any value that differs from the installed header.
 *
 * <p>All values are {@code int} except the mmap offsets, which are 64-bit file offsets in C.
 */
public final class IoUringConstants {

    // ---- Opcodes (enum io_uring_op). The kernel may support fewer: ask IoUring.probe() before using one.
    public static final int IORING_OP_NOP = 0;
    public static final int IORING_OP_READV = 1;
    public static final int IORING_OP_WRITEV = 2;
    public static final int IORING_OP_FSYNC = 3;
    public static final int IORING_OP_READ_FIXED = 4;
    public static final int IORING_OP_WRITE_FIXED = 5;
    public static final int IORING_OP_POLL_ADD = 6;
    public static final int IORING_OP_POLL_REMOVE = 7;
    public static final int IORING_OP_SENDMSG = 9;
    public static final int IORING_OP_RECVMSG = 10;
    public static final int IORING_OP_TIMEOUT = 11;
    public static final int IORING_OP_TIMEOUT_REMOVE = 12;
    public static final int IORING_OP_ACCEPT = 13;
    public static final int IORING_OP_ASYNC_CANCEL = 14;
    public static final int IORING_OP_LINK_TIMEOUT = 15;
    public static final int IORING_OP_CONNECT = 16;
    public static final int IORING_OP_CLOSE = 19;
    public static final int IORING_OP_READ = 22;
    public static final int IORING_OP_WRITE = 23;
    public static final int IORING_OP_SEND = 26;
    public static final int IORING_OP_RECV = 27;
    public static final int IORING_OP_PROVIDE_BUFFERS = 31;
    public static final int IORING_OP_REMOVE_BUFFERS = 32;
    public static final int IORING_OP_SHUTDOWN = 34;
    public static final int IORING_OP_MSG_RING = 40;
    public static final int IORING_OP_SOCKET = 45;
    public static final int IORING_OP_URING_CMD = 46;
    /** Zero-copy send (kernel 6.0+): two CQEs, see {@link #IORING_CQE_F_MORE} and {@link #IORING_CQE_F_NOTIF}. */
    public static final int IORING_OP_SEND_ZC = 47;
    public static final int IORING_OP_SENDMSG_ZC = 48;
    /** One past the last opcode the 6.1 header knows; the probe's {@code last_op} reports the kernel's. */
    public static final int IORING_OP_LAST = 49;

    // ---- io_uring_setup flags (params.flags)
    public static final int IORING_SETUP_IOPOLL = 1;
    /** A kernel thread polls the SQ; burns a CPU while busy. Submission then needs the wake-up protocol. */
    public static final int IORING_SETUP_SQPOLL = 1 << 1;
    public static final int IORING_SETUP_SQ_AFF = 1 << 2;
    public static final int IORING_SETUP_CQSIZE = 1 << 3;
    public static final int IORING_SETUP_CLAMP = 1 << 4;
    public static final int IORING_SETUP_ATTACH_WQ = 1 << 5;
    public static final int IORING_SETUP_R_DISABLED = 1 << 6;
    /** Keep submitting the rest of a batch when one SQE fails to prepare (5.18+). */
    public static final int IORING_SETUP_SUBMIT_ALL = 1 << 7;
    /** No IPI on completion; task work runs at the next kernel entry (5.19+). */
    public static final int IORING_SETUP_COOP_TASKRUN = 1 << 8;
    /** With COOP_TASKRUN: the kernel sets {@link #IORING_SQ_TASKRUN} when an entry is needed to run task work. */
    public static final int IORING_SETUP_TASKRUN_FLAG = 1 << 9;
    public static final int IORING_SETUP_SQE128 = 1 << 10;
    public static final int IORING_SETUP_CQE32 = 1 << 11;
    /** Only the creating thread may submit (6.0+); others get {@code -EEXIST}. Never use from virtual threads. */
    public static final int IORING_SETUP_SINGLE_ISSUER = 1 << 12;
    /** Completions only appear when the issuer enters with GETEVENTS (6.1+, needs SINGLE_ISSUER). */
    public static final int IORING_SETUP_DEFER_TASKRUN = 1 << 13;

    // ---- io_uring_enter flags
    public static final int IORING_ENTER_GETEVENTS = 1;
    public static final int IORING_ENTER_SQ_WAKEUP = 1 << 1;
    public static final int IORING_ENTER_SQ_WAIT = 1 << 2;
    /** {@code arg} is an {@code io_uring_getevents_arg} (sigmask + timeout) instead of a sigset (5.11+). */
    public static final int IORING_ENTER_EXT_ARG = 1 << 3;
    public static final int IORING_ENTER_REGISTERED_RING = 1 << 4;

    // ---- io_uring_register opcodes
    public static final int IORING_REGISTER_BUFFERS = 0;
    public static final int IORING_UNREGISTER_BUFFERS = 1;
    public static final int IORING_REGISTER_FILES = 2;
    public static final int IORING_UNREGISTER_FILES = 3;
    public static final int IORING_REGISTER_EVENTFD = 4;
    public static final int IORING_UNREGISTER_EVENTFD = 5;
    public static final int IORING_REGISTER_PROBE = 8;
    public static final int IORING_REGISTER_ENABLE_RINGS = 12;
    public static final int IORING_REGISTER_BUFFERS2 = 15;
    public static final int IORING_REGISTER_BUFFERS_UPDATE = 16;
    /** {@code io_uring_rsrc_register.flags}: a table of empty slots, filled later with BUFFERS_UPDATE (5.19+). */
    public static final int IORING_RSRC_REGISTER_SPARSE = 1;
    public static final int IORING_REGISTER_RING_FDS = 20;
    public static final int IORING_UNREGISTER_RING_FDS = 21;

    // ---- sqe->flags (IOSQE_*)
    public static final int IOSQE_FIXED_FILE = 1;
    public static final int IOSQE_IO_DRAIN = 1 << 1;
    public static final int IOSQE_IO_LINK = 1 << 2;
    public static final int IOSQE_IO_HARDLINK = 1 << 3;
    public static final int IOSQE_ASYNC = 1 << 4;
    public static final int IOSQE_BUFFER_SELECT = 1 << 5;
    public static final int IOSQE_CQE_SKIP_SUCCESS = 1 << 6;

    // ---- send/recv flags, carried in sqe->ioprio
    public static final int IORING_RECVSEND_POLL_FIRST = 1;
    public static final int IORING_RECV_MULTISHOT = 1 << 1;
    /** Send from a registered buffer: {@code buf_index} names it, {@code addr}/{@code len} must lie inside it. */
    public static final int IORING_RECVSEND_FIXED_BUF = 1 << 2;
    /** SEND_ZC: the notification CQE's res reports {@link #IORING_NOTIF_USAGE_ZC_COPIED} if data was copied. */
    public static final int IORING_SEND_ZC_REPORT_USAGE = 1 << 3;
    public static final int IORING_NOTIF_USAGE_ZC_COPIED = 1 << 31;
    /** accept flag in sqe->ioprio. */
    public static final int IORING_ACCEPT_MULTISHOT = 1;

    // ---- sqe->timeout_flags
    public static final int IORING_TIMEOUT_ABS = 1;
    public static final int IORING_TIMEOUT_UPDATE = 1 << 1;
    public static final int IORING_TIMEOUT_BOOTTIME = 1 << 2;
    public static final int IORING_TIMEOUT_REALTIME = 1 << 3;
    public static final int IORING_LINK_TIMEOUT_UPDATE = 1 << 4;
    public static final int IORING_TIMEOUT_ETIME_SUCCESS = 1 << 5;

    // ---- sqe->cancel_flags (IORING_OP_ASYNC_CANCEL)
    public static final int IORING_ASYNC_CANCEL_ALL = 1;
    public static final int IORING_ASYNC_CANCEL_FD = 1 << 1;
    public static final int IORING_ASYNC_CANCEL_ANY = 1 << 2;
    public static final int IORING_ASYNC_CANCEL_FD_FIXED = 1 << 3;

    // ---- POLL_ADD command flags (in sqe->len)
    public static final int IORING_POLL_ADD_MULTI = 1;

    /** {@code sqe->file_index} value asking the kernel to pick a free direct-descriptor slot. */
    public static final int IORING_FILE_INDEX_ALLOC = ~0;

    // ---- cqe->flags
    /** The upper 16 bits of flags carry the selected buffer id ({@link #IORING_CQE_BUFFER_SHIFT}). */
    public static final int IORING_CQE_F_BUFFER = 1;
    /** More CQEs will follow for the same SQE (multishot, or SEND_ZC's pending notification). */
    public static final int IORING_CQE_F_MORE = 1 << 1;
    public static final int IORING_CQE_F_SOCK_NONEMPTY = 1 << 2;
    /** SEND_ZC notification: the kernel no longer references the buffer. */
    public static final int IORING_CQE_F_NOTIF = 1 << 3;
    public static final int IORING_CQE_BUFFER_SHIFT = 16;

    // ---- mmap offsets (io_uring_setup.2)
    public static final long IORING_OFF_SQ_RING = 0L;
    public static final long IORING_OFF_CQ_RING = 0x8000000L;
    public static final long IORING_OFF_SQES = 0x10000000L;

    // ---- sq_ring->flags
    public static final int IORING_SQ_NEED_WAKEUP = 1;
    public static final int IORING_SQ_CQ_OVERFLOW = 1 << 1;
    public static final int IORING_SQ_TASKRUN = 1 << 2;

    // ---- cq_ring->flags
    public static final int IORING_CQ_EVENTFD_DISABLED = 1;

    // ---- params->features (IORING_FEAT_*)
    /** SQ and CQ rings share one mapping. */
    public static final int IORING_FEAT_SINGLE_MMAP = 1;
    /** Overflowing completions are kept in the kernel, never dropped (submission may then fail EBUSY). */
    public static final int IORING_FEAT_NODROP = 1 << 1;
    /** Data for an SQE is consumed at submission; it need not stay valid afterwards. */
    public static final int IORING_FEAT_SUBMIT_STABLE = 1 << 2;
    public static final int IORING_FEAT_RW_CUR_POS = 1 << 3;
    public static final int IORING_FEAT_CUR_PERSONALITY = 1 << 4;
    public static final int IORING_FEAT_FAST_POLL = 1 << 5;
    public static final int IORING_FEAT_POLL_32BITS = 1 << 6;
    public static final int IORING_FEAT_SQPOLL_NONFIXED = 1 << 7;
    /** io_uring_enter understands {@link #IORING_ENTER_EXT_ARG} (timeouts without an SQE). */
    public static final int IORING_FEAT_EXT_ARG = 1 << 8;
    public static final int IORING_FEAT_NATIVE_WORKERS = 1 << 9;
    public static final int IORING_FEAT_RSRC_TAGS = 1 << 10;
    public static final int IORING_FEAT_CQE_SKIP = 1 << 11;
    public static final int IORING_FEAT_LINKED_FILE = 1 << 12;

    /** {@code io_uring_probe_op.flags}: the opcode is supported. */
    public static final int IO_URING_OP_SUPPORTED = 1;

    private IoUringConstants() {
    }
}
