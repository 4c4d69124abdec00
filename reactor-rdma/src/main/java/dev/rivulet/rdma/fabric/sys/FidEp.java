package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

/**
 * {@code struct fid_ep} (fi_endpoint.h), opened by {@link FidDomain#endpoint}, and its inline calls: setup
 * ({@code fi_ep_bind}, {@code fi_enable}, {@code fi_getname}, {@code fi_setopt}/{@code fi_getopt},
 * {@code fi_cancel}), messages ({@code fi_ops_msg}), RMA ({@code fi_ops_rma}) and atomics
 * ({@code fi_ops_atomic}).
 *
 * <p><b>Return values.</b> Data-transfer calls return {@code ssize_t}: 0 when posted, {@code -FI_EAGAIN} when the
 * provider is out of queue space or buffers (not an error: read the TX and RX CQs to make progress, then post
 * again), another negative fabric errno on failure, and {@code -FI_ENOSYS} when the provider leaves the slot or
 * the whole table empty (e.g. {@code ep->atomic} on an endpoint opened without {@code FI_ATOMIC}).
 *
 * <p><b>Arguments.</b> {@code desc} is {@link FidMr#desc} of the local buffer's registration when the domain's
 * mr_mode has {@code FI_MR_LOCAL}, else may be NULL. {@code context} must point to a live {@link FiContext2}
 * slot when the endpoint's mode has {@code FI_CONTEXT}/{@code FI_CONTEXT2}; it comes back as the completion's
 * {@code op_context}. Remote {@code addr} is the target's virtual address with {@code FI_MR_VIRT_ADDR}, else the
 * offset into the target region; {@code key} is the target region's {@link FidMr#key}. Atomic {@code count}s
 * are datatype elements, not bytes.
 *
 * <p><b>Cost.</b> Each call reads the table pointer and the function pointer from the endpoint (the header's
 * {@code ep->msg->send}), checks them as {@code FI_CHECK_OP} would, and makes one {@code invokeExact} on a handle
 * shared by all providers. Reading per call, rather than caching function pointers, is deliberate: fi_endpoint.h
 * allows {@code fi_enable}, {@code fi_ep_bind} or {@code fi_setopt} to swap the tables. Posting and polling
 * calls are linked {@code critical}; setup calls are not.
 */
public final class FidEp {

    /** {@code struct fid_ep}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            Fid.LAYOUT.withName("fid"),
            ADDRESS.withName("ops"),
            ADDRESS.withName("cm"),
            ADDRESS.withName("msg"),
            ADDRESS.withName("rma"),
            ADDRESS.withName("tagged"),
            ADDRESS.withName("atomic"),
            ADDRESS.withName("collective"))
            .withName("fid_ep");

    /** {@code sizeof(struct fid_ep)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long OPS = Downcalls.offset(LAYOUT, "ops");
    private static final long CM = Downcalls.offset(LAYOUT, "cm");
    private static final long MSG = Downcalls.offset(LAYOUT, "msg");
    private static final long RMA = Downcalls.offset(LAYOUT, "rma");
    private static final long ATOMIC = Downcalls.offset(LAYOUT, "atomic");

    // ---- endpoint control and CM: setup-time calls, ordinary downcalls
    private static final MethodHandle GETNAME = Dispatch.downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle CANCEL = Dispatch.downcall(
            FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS));
    private static final MethodHandle SETOPT = Dispatch.downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle GETOPT = Dispatch.downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));

    // ---- fi_ops_msg: posting calls, critical (they queue work and return)
    /** recv and send: {@code (ep, buf, len, desc, fi_addr_t, context)}. */
    private static final MethodHandle MSG_BUF = Dispatch.criticalDowncall(FunctionDescriptor.of(JAVA_LONG,
            ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS));
    /** recvmsg, sendmsg, readmsg, writemsg, atomicmsg: {@code (ep, const struct fi_msg_xx *, uint64_t flags)}. */
    private static final MethodHandle XX_MSG = Dispatch.criticalDowncall(FunctionDescriptor.of(JAVA_LONG,
            ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle INJECT = Dispatch.criticalDowncall(FunctionDescriptor.of(JAVA_LONG,
            ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle SENDDATA = Dispatch.criticalDowncall(FunctionDescriptor.of(JAVA_LONG,
            ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS));
    private static final MethodHandle INJECTDATA = Dispatch.criticalDowncall(FunctionDescriptor.of(JAVA_LONG,
            ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG));

    // ---- fi_ops_rma
    /** read and write: {@code (ep, buf, len, desc, fi_addr_t, addr, key, context)}. */
    private static final MethodHandle RMA_BUF = Dispatch.criticalDowncall(FunctionDescriptor.of(JAVA_LONG,
            ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS));
    private static final MethodHandle WRITEDATA = Dispatch.criticalDowncall(FunctionDescriptor.of(JAVA_LONG,
            ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS));
    private static final MethodHandle INJECT_WRITE = Dispatch.criticalDowncall(FunctionDescriptor.of(JAVA_LONG,
            ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));

    // ---- fi_ops_atomic
    private static final MethodHandle ATOMIC_WRITE = Dispatch.criticalDowncall(FunctionDescriptor.of(JAVA_LONG,
            ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle ATOMIC_READWRITE = Dispatch.criticalDowncall(FunctionDescriptor.of(JAVA_LONG,
            ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_INT,
            JAVA_INT, ADDRESS));
    private static final MethodHandle ATOMIC_COMPWRITE = Dispatch.criticalDowncall(FunctionDescriptor.of(JAVA_LONG,
            ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG,
            JAVA_LONG, JAVA_INT, JAVA_INT, ADDRESS));
    /** writevalid, readwritevalid, compwritevalid: {@code int (ep, datatype, op, size_t *count)}; capability probes. */
    private static final MethodHandle ATOMIC_VALID = Dispatch.downcall(FunctionDescriptor.of(JAVA_INT,
            ADDRESS, JAVA_INT, JAVA_INT, ADDRESS));

    private FidEp() {
    }

    /** Sizes a {@code struct fid_ep*}; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return Dispatch.sized(pointer, SIZE);
    }

    // ============================================================================================ setup

    /**
     * {@code int fi_ep_bind(struct fid_ep *ep, struct fid *bfid, uint64_t flags)}: an AV with flags 0, a CQ with
     * {@code FI_TRANSMIT} and/or {@code FI_RECV} (plus {@code FI_SELECTIVE_COMPLETION} to complete only
     * operations posted with {@code FI_COMPLETION}).
     */
    public static int bind(MemorySegment ep, MemorySegment bfid, long flags) {
        return Fid.bind(ep, bfid, flags);
    }

    /** {@code int fi_enable(struct fid_ep *ep)}: {@code fi_control(ep, FI_ENABLE, NULL)}, after binding. */
    public static int enable(MemorySegment ep) {
        return Fid.control(ep, FiConstants.FI_ENABLE, MemorySegment.NULL);
    }

    /**
     * {@code int fi_getname(fid_t fid, void *addr, size_t *addrlen)}: the endpoint's own address, as peers insert
     * it into their AV. With a NULL or short buffer it returns {@code -FI_ETOOSMALL} and writes the needed length
     * to {@code *addrlen} (16 for IPv4 tcp/sockets, variable for shm).
     */
    public static int getname(MemorySegment fid, MemorySegment addr, MemorySegment addrlen) {
        long fn = Dispatch.function(fid, CM, FiOpsCm.GETNAME);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (int) GETNAME.invokeExact(Dispatch.target(fn), fid, addr, addrlen);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code int fi_setopt(fid_t fid, int level, int optname, const void *optval, size_t optlen)}, e.g.
     * {@code FI_OPT_ENDPOINT}/{@code FI_OPT_MIN_MULTI_RECV} with a {@code size_t}.
     */
    public static int setopt(MemorySegment fid, int level, int optname, MemorySegment optval, long optlen) {
        long fn = Dispatch.function(fid, OPS, FiOpsEp.SETOPT);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (int) SETOPT.invokeExact(Dispatch.target(fn), fid, level, optname, optval, optlen);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code int fi_getopt(fid_t fid, int level, int optname, void *optval, size_t *optlen)}. */
    public static int getopt(MemorySegment fid, int level, int optname, MemorySegment optval, MemorySegment optlen) {
        long fn = Dispatch.function(fid, OPS, FiOpsEp.GETOPT);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (int) GETOPT.invokeExact(Dispatch.target(fn), fid, level, optname, optval, optlen);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code ssize_t fi_cancel(fid_t fid, void *context)}: cancels the pending operation posted with
     * {@code context}; it completes with error {@code FI_ECANCELED} if it was still queued.
     */
    public static long cancel(MemorySegment fid, MemorySegment context) {
        long fn = Dispatch.function(fid, OPS, FiOpsEp.CANCEL);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (long) CANCEL.invokeExact(Dispatch.target(fn), fid, context);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    // ============================================================================================ messages

    /**
     * {@code ssize_t fi_recv(struct fid_ep *ep, void *buf, size_t len, void *desc, fi_addr_t src_addr,
     * void *context)}; {@code src_addr} is {@code FI_ADDR_UNSPEC} to accept any sender.
     */
    public static long recv(MemorySegment ep, MemorySegment buf, long len, MemorySegment desc, long srcAddr,
                            MemorySegment context) {
        long fn = Dispatch.function(ep, MSG, FiOpsMsg.RECV);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (long) MSG_BUF.invokeExact(Dispatch.target(fn), ep, buf, len, desc, srcAddr, context);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code ssize_t fi_recvmsg(struct fid_ep *ep, const struct fi_msg *msg, uint64_t flags)} ({@link FiMsg}). */
    public static long recvmsg(MemorySegment ep, MemorySegment msg, long flags) {
        return call(ep, MSG, FiOpsMsg.RECVMSG, msg, flags);
    }

    /**
     * {@code ssize_t fi_send(struct fid_ep *ep, const void *buf, size_t len, void *desc, fi_addr_t dest_addr,
     * void *context)}.
     */
    public static long send(MemorySegment ep, MemorySegment buf, long len, MemorySegment desc, long destAddr,
                            MemorySegment context) {
        long fn = Dispatch.function(ep, MSG, FiOpsMsg.SEND);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (long) MSG_BUF.invokeExact(Dispatch.target(fn), ep, buf, len, desc, destAddr, context);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code ssize_t fi_sendmsg(struct fid_ep *ep, const struct fi_msg *msg, uint64_t flags)} ({@link FiMsg}),
     * for per-operation flags such as {@code FI_DELIVERY_COMPLETE}, {@code FI_REMOTE_CQ_DATA}, {@code FI_INJECT}.
     */
    public static long sendmsg(MemorySegment ep, MemorySegment msg, long flags) {
        return call(ep, MSG, FiOpsMsg.SENDMSG, msg, flags);
    }

    /**
     * {@code ssize_t fi_inject(struct fid_ep *ep, const void *buf, size_t len, fi_addr_t dest_addr)}: the buffer is
     * reusable on return and no completion is generated; {@code len} &le; {@code tx_attr.inject_size}.
     */
    public static long inject(MemorySegment ep, MemorySegment buf, long len, long destAddr) {
        long fn = Dispatch.function(ep, MSG, FiOpsMsg.INJECT);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (long) INJECT.invokeExact(Dispatch.target(fn), ep, buf, len, destAddr);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code ssize_t fi_senddata(struct fid_ep *ep, const void *buf, size_t len, void *desc, uint64_t data,
     * fi_addr_t dest_addr, void *context)}: a send carrying {@code data} into the receiver's CQ entry (needs
     * {@code FI_REMOTE_CQ_DATA} and {@code domain_attr.cq_data_size} &gt; 0).
     */
    public static long senddata(MemorySegment ep, MemorySegment buf, long len, MemorySegment desc, long data,
                                long destAddr, MemorySegment context) {
        long fn = Dispatch.function(ep, MSG, FiOpsMsg.SENDDATA);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (long) SENDDATA.invokeExact(Dispatch.target(fn), ep, buf, len, desc, data, destAddr, context);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code ssize_t fi_injectdata(struct fid_ep *ep, const void *buf, size_t len, uint64_t data,
     * fi_addr_t dest_addr)}.
     */
    public static long injectdata(MemorySegment ep, MemorySegment buf, long len, long data, long destAddr) {
        long fn = Dispatch.function(ep, MSG, FiOpsMsg.INJECTDATA);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (long) INJECTDATA.invokeExact(Dispatch.target(fn), ep, buf, len, data, destAddr);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    // ============================================================================================ RMA

    /**
     * {@code ssize_t fi_read(struct fid_ep *ep, void *buf, size_t len, void *desc, fi_addr_t src_addr,
     * uint64_t addr, uint64_t key, void *context)}: reads the peer's region into {@code buf}.
     */
    public static long read(MemorySegment ep, MemorySegment buf, long len, MemorySegment desc, long srcAddr,
                            long addr, long key, MemorySegment context) {
        return rma(ep, FiOpsRma.READ, buf, len, desc, srcAddr, addr, key, context);
    }

    /**
     * {@code ssize_t fi_readmsg(struct fid_ep *ep, const struct fi_msg_rma *msg, uint64_t flags)} ({@link FiMsgRma}).
     */
    public static long readmsg(MemorySegment ep, MemorySegment msg, long flags) {
        return call(ep, RMA, FiOpsRma.READMSG, msg, flags);
    }

    /**
     * {@code ssize_t fi_write(struct fid_ep *ep, const void *buf, size_t len, void *desc, fi_addr_t dest_addr,
     * uint64_t addr, uint64_t key, void *context)}: writes {@code buf} into the peer's region. The completion
     * follows the endpoint's default completion semantics; use {@link #writemsg} with
     * {@code FI_DELIVERY_COMPLETE} when the data must be visible at the target.
     */
    public static long write(MemorySegment ep, MemorySegment buf, long len, MemorySegment desc, long destAddr,
                             long addr, long key, MemorySegment context) {
        return rma(ep, FiOpsRma.WRITE, buf, len, desc, destAddr, addr, key, context);
    }

    /**
     * {@code ssize_t fi_writemsg(struct fid_ep *ep, const struct fi_msg_rma *msg, uint64_t flags)}
     * ({@link FiMsgRma}): RMA write with flags, e.g. {@code FI_COMPLETION | FI_DELIVERY_COMPLETE},
     * {@code FI_FENCE}, {@code FI_REMOTE_CQ_DATA}, {@code FI_INJECT}.
     */
    public static long writemsg(MemorySegment ep, MemorySegment msg, long flags) {
        return call(ep, RMA, FiOpsRma.WRITEMSG, msg, flags);
    }

    /**
     * {@code ssize_t fi_writedata(struct fid_ep *ep, const void *buf, size_t len, void *desc, uint64_t data,
     * fi_addr_t dest_addr, uint64_t addr, uint64_t key, void *context)}: a write that also puts {@code data} into
     * a target CQ entry (consuming no posted receive unless {@code FI_RX_CQ_DATA} is in the mode).
     */
    public static long writedata(MemorySegment ep, MemorySegment buf, long len, MemorySegment desc, long data,
                                 long destAddr, long addr, long key, MemorySegment context) {
        long fn = Dispatch.function(ep, RMA, FiOpsRma.WRITEDATA);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (long) WRITEDATA.invokeExact(Dispatch.target(fn), ep, buf, len, desc, data, destAddr, addr, key,
                    context);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code ssize_t fi_inject_write(struct fid_ep *ep, const void *buf, size_t len, fi_addr_t dest_addr,
     * uint64_t addr, uint64_t key)}: no completion, buffer reusable on return.
     */
    public static long injectWrite(MemorySegment ep, MemorySegment buf, long len, long destAddr, long addr,
                                   long key) {
        long fn = Dispatch.function(ep, RMA, FiOpsRma.INJECT);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (long) INJECT_WRITE.invokeExact(Dispatch.target(fn), ep, buf, len, destAddr, addr, key);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    // ============================================================================================ atomics

    /**
     * {@code ssize_t fi_atomic(struct fid_ep *ep, const void *buf, size_t count, void *desc, fi_addr_t dest_addr,
     * uint64_t addr, uint64_t key, enum fi_datatype datatype, enum fi_op op, void *context)}: {@code target =
     * op(target, buf)} element-wise.
     */
    public static long atomic(MemorySegment ep, MemorySegment buf, long count, MemorySegment desc, long destAddr,
                              long addr, long key, int datatype, int op, MemorySegment context) {
        long fn = Dispatch.function(ep, ATOMIC, FiOpsAtomic.WRITE);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (long) ATOMIC_WRITE.invokeExact(Dispatch.target(fn), ep, buf, count, desc, destAddr, addr, key,
                    datatype, op, context);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code ssize_t fi_atomicmsg(struct fid_ep *ep, const struct fi_msg_atomic *msg, uint64_t flags)} ({@link
     * FiMsgAtomic}).
     */
    public static long atomicmsg(MemorySegment ep, MemorySegment msg, long flags) {
        return call(ep, ATOMIC, FiOpsAtomic.WRITEMSG, msg, flags);
    }

    /**
     * {@code ssize_t fi_fetch_atomic(struct fid_ep *ep, const void *buf, size_t count, void *desc, void *result,
     * void *result_desc, fi_addr_t dest_addr, uint64_t addr, uint64_t key, enum fi_datatype datatype,
     * enum fi_op op, void *context)}: as {@link #atomic}, also returning the old target value in {@code result}
     * ({@code FI_ATOMIC_READ} ignores {@code buf}).
     */
    public static long fetchAtomic(MemorySegment ep, MemorySegment buf, long count, MemorySegment desc,
                                   MemorySegment result, MemorySegment resultDesc, long destAddr, long addr, long key,
                                   int datatype, int op, MemorySegment context) {
        long fn = Dispatch.function(ep, ATOMIC, FiOpsAtomic.READWRITE);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (long) ATOMIC_READWRITE.invokeExact(Dispatch.target(fn), ep, buf, count, desc, result, resultDesc,
                    destAddr, addr, key, datatype, op, context);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code ssize_t fi_compare_atomic(struct fid_ep *ep, const void *buf, size_t count, void *desc,
     * const void *compare, void *compare_desc, void *result, void *result_desc, fi_addr_t dest_addr,
     * uint64_t addr, uint64_t key, enum fi_datatype datatype, enum fi_op op, void *context)}: e.g.
     * {@code FI_CSWAP} writes {@code buf} where the target equals {@code compare}; {@code result} gets the old value.
     */
    public static long compareAtomic(MemorySegment ep, MemorySegment buf, long count, MemorySegment desc,
                                     MemorySegment compare, MemorySegment compareDesc, MemorySegment result,
                                     MemorySegment resultDesc, long destAddr, long addr, long key, int datatype,
                                     int op, MemorySegment context) {
        long fn = Dispatch.function(ep, ATOMIC, FiOpsAtomic.COMPWRITE);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (long) ATOMIC_COMPWRITE.invokeExact(Dispatch.target(fn), ep, buf, count, desc, compare,
                    compareDesc, result, resultDesc, destAddr, addr, key, datatype, op, context);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code int fi_atomicvalid(struct fid_ep *ep, enum fi_datatype datatype, enum fi_op op, size_t *count)}:
     * 0 and the largest element count per operation in {@code *count} if the provider supports {@link #atomic}
     * for this pair, a negative errno (typically {@code -FI_EOPNOTSUPP}) if not.
     */
    public static int atomicvalid(MemorySegment ep, int datatype, int op, MemorySegment count) {
        return valid(ep, FiOpsAtomic.WRITEVALID, datatype, op, count);
    }

    /** {@code int fi_fetch_atomicvalid(...)}: as {@link #atomicvalid}, for {@link #fetchAtomic}. */
    public static int fetchAtomicvalid(MemorySegment ep, int datatype, int op, MemorySegment count) {
        return valid(ep, FiOpsAtomic.READWRITEVALID, datatype, op, count);
    }

    /** {@code int fi_compare_atomicvalid(...)}: as {@link #atomicvalid}, for {@link #compareAtomic}. */
    public static int compareAtomicvalid(MemorySegment ep, int datatype, int op, MemorySegment count) {
        return valid(ep, FiOpsAtomic.COMPWRITEVALID, datatype, op, count);
    }

    // ============================================================================================ shared shapes

    private static long rma(MemorySegment ep, long slot, MemorySegment buf, long len, MemorySegment desc,
                            long peer, long addr, long key, MemorySegment context) {
        long fn = Dispatch.function(ep, RMA, slot);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (long) RMA_BUF.invokeExact(Dispatch.target(fn), ep, buf, len, desc, peer, addr, key, context);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** The {@code (ep, const struct fi_msg_xx *msg, uint64_t flags)} shape of every *msg call. */
    private static long call(MemorySegment ep, long table, long slot, MemorySegment msg, long flags) {
        long fn = Dispatch.function(ep, table, slot);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (long) XX_MSG.invokeExact(Dispatch.target(fn), ep, msg, flags);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private static int valid(MemorySegment ep, long slot, int datatype, int op, MemorySegment count) {
        long fn = Dispatch.function(ep, ATOMIC, slot);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (int) ATOMIC_VALID.invokeExact(Dispatch.target(fn), ep, datatype, op, count);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
