package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

/**
 * {@code struct fid_cq} (fi_eq.h), a completion queue opened by {@link FidDomain#cqOpen}, and its inline calls.
 *
 * <p>Reading a CQ is also how providers with {@code FI_PROGRESS_MANUAL} data progress ({@code tcp;ofi_rxm})
 * move data, for the initiator and the target alike: a peer that is only the target of RMA must keep reading its
 * CQ. {@link #read}, {@link #readfrom} and {@link #readerr} are linked {@code critical}: they return at once.
 */
public final class FidCq {

    /** {@code struct fid_cq}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            Fid.LAYOUT.withName("fid"),
            ADDRESS.withName("ops"))
            .withName("fid_cq");

    /** {@code sizeof(struct fid_cq)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long OPS = Downcalls.offset(LAYOUT, "ops");

    private static final MethodHandle READ = Dispatch.criticalDowncall(
            FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle READFROM = Dispatch.criticalDowncall(
            FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
    private static final MethodHandle READERR = Dispatch.criticalDowncall(
            FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG));
    // Blocks up to its timeout: must stay an ordinary downcall so safepoints and GC proceed meanwhile.
    private static final MethodHandle SREAD = Dispatch.downcall(
            FunctionDescriptor.of(JAVA_LONG, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_INT));
    private static final MethodHandle SIGNAL = Dispatch.downcall(FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle STRERROR = Dispatch.downcall(
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));

    private FidCq() {
    }

    /** Sizes a {@code struct fid_cq*}; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return Dispatch.sized(pointer, SIZE);
    }

    /**
     * {@code ssize_t fi_cq_read(struct fid_cq *cq, void *buf, size_t count)}.
     *
     * @param buf room for {@code count} entries of the CQ's format ({@link FiCqDataEntry} for
     *            {@code FI_CQ_FORMAT_DATA})
     * @return entries read (&gt; 0), {@code -FI_EAGAIN} when empty, {@code -FI_EAVAIL} when the next entry is an
     *         error (fetch it with {@link #readerr}), or another negative fabric errno
     */
    public static long read(MemorySegment cq, MemorySegment buf, long count) {
        long fn = Dispatch.function(cq, OPS, FiOpsCq.READ);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (long) READ.invokeExact(Dispatch.target(fn), cq, buf, count);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code ssize_t fi_cq_readfrom(struct fid_cq *cq, void *buf, size_t count, fi_addr_t *src_addr)}: as
     * {@link #read}, also writing each entry's source address (needs {@code FI_SOURCE}).
     */
    public static long readfrom(MemorySegment cq, MemorySegment buf, long count, MemorySegment srcAddr) {
        long fn = Dispatch.function(cq, OPS, FiOpsCq.READFROM);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (long) READFROM.invokeExact(Dispatch.target(fn), cq, buf, count, srcAddr);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code ssize_t fi_cq_readerr(struct fid_cq *cq, struct fi_cq_err_entry *buf, uint64_t flags)}.
     *
     * @param buf a {@link FiCqErrEntry}, zeroed before the call (see its class comment on {@code err_data})
     * @return 1 when an entry was read, {@code -FI_EAGAIN} when there is none
     */
    public static long readerr(MemorySegment cq, MemorySegment buf, long flags) {
        long fn = Dispatch.function(cq, OPS, FiOpsCq.READERR);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (long) READERR.invokeExact(Dispatch.target(fn), cq, buf, flags);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code ssize_t fi_cq_sread(struct fid_cq *cq, void *buf, size_t count, const void *cond, int timeout)}:
     * {@link #read} that waits up to {@code timeout} ms (-1: forever).
     *
     * <p><b>Only for CQs with a blocking wait object</b>, as read back from {@link FiCqAttr#waitObj} after
     * {@link FidDomain#cqOpen} (providers rewrite it). With {@code FI_WAIT_NONE}, libfabric 1.17's util CQ
     * dereferences the missing wait object and crashes the process; with {@code FI_WAIT_YIELD}, which 1.17's shm
     * substitutes for {@code FI_WAIT_UNSPEC}, it spins on {@code sched_yield} and ignores the timeout. The binding
     * keeps no per-CQ state, so the caller must remember what it got.
     */
    public static long sread(MemorySegment cq, MemorySegment buf, long count, MemorySegment cond, int timeout) {
        long fn = Dispatch.function(cq, OPS, FiOpsCq.SREAD);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (long) SREAD.invokeExact(Dispatch.target(fn), cq, buf, count, cond, timeout);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code int fi_cq_signal(struct fid_cq *cq)}: wakes a thread blocked in {@link #sread}. Same restriction as
     * {@code sread}: never on a {@code FI_WAIT_NONE} CQ.
     */
    public static int signal(MemorySegment cq) {
        long fn = Dispatch.function(cq, OPS, FiOpsCq.SIGNAL);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (int) SIGNAL.invokeExact(Dispatch.target(fn), cq);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code const char *fi_cq_strerror(struct fid_cq *cq, int prov_errno, const void *err_data, char *buf,
     * size_t len)}: the provider's text for {@link FiCqErrEntry#provErrno}. Providers may return a static string
     * instead of filling {@code buf}.
     *
     * @return the text pointer, or NULL when the provider does not implement it
     */
    public static MemorySegment strerror(MemorySegment cq, int provErrno, MemorySegment errData, MemorySegment buf,
                                         long len) {
        long fn = Dispatch.function(cq, OPS, FiOpsCq.STRERROR);
        if (fn == 0) {
            return MemorySegment.NULL;
        }
        try {
            return (MemorySegment) STRERROR.invokeExact(Dispatch.target(fn), cq, provErrno, errData, buf, len);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@link #strerror(MemorySegment, int, MemorySegment, MemorySegment, long)} as a Java string ({@code null} if
     * none).
     */
    public static String strerror(MemorySegment cq, int provErrno, MemorySegment errData) {
        try (Arena scratch = Arena.ofConfined()) {
            long len = 256;
            return Dispatch.string(strerror(cq, provErrno, errData, scratch.allocate(len), len));
        }
    }
}
