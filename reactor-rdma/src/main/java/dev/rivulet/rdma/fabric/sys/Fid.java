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
 * {@code struct fid} (fabric.h), the header every libfabric object starts with, and the calls every object
 * supports through its {@link FiOps} table: {@code fi_close}, {@code fi_control} and the generic bind behind
 * {@code fi_ep_bind}, {@code fi_mr_bind}, {@code fi_av_bind} and {@code fi_domain_bind}.
 *
 * <p>Because {@code struct fid} sits at offset 0 of every {@code fid_*} struct, the object pointer is also its
 * {@code struct fid*}: any {@code fid_ep}, {@code fid_cq}, ... segment can be passed where a fid is expected.
 */
public final class Fid {

    /** {@code struct fid}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("fclass"),
            ADDRESS.withName("context"),
            ADDRESS.withName("ops"))
            .withName("fid");

    /** {@code sizeof(struct fid)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long FCLASS = Downcalls.offset(LAYOUT, "fclass");
    private static final long CONTEXT = Downcalls.offset(LAYOUT, "context");
    /** Offset of the {@code fi_ops*} in every object. */
    static final long OPS = Downcalls.offset(LAYOUT, "ops");

    // Setup and teardown calls: ordinary downcalls (they may allocate, join threads, flush queues).
    private static final MethodHandle CLOSE = Dispatch.downcall(FunctionDescriptor.of(JAVA_INT, ADDRESS));
    private static final MethodHandle BIND = Dispatch.downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG));
    private static final MethodHandle CONTROL = Dispatch.downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));

    private Fid() {
    }

    /** Sizes an object pointer to {@code struct fid}; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return Dispatch.sized(pointer, SIZE);
    }

    /** {@code fid.fclass}: {@code FI_CLASS_EP}, {@code FI_CLASS_CQ}... */
    public static long fclass(MemorySegment fid) {
        return of(fid).get(JAVA_LONG, FCLASS);
    }

    /** {@code fid.context}: the context given when the object was opened. */
    public static MemorySegment context(MemorySegment fid) {
        return of(fid).get(ADDRESS, CONTEXT);
    }

    /**
     * {@code int fi_close(struct fid *fid)}. Close dependants first: MRs bound to an endpoint and endpoints before
     * the CQs/AVs they are bound to, everything before its domain, the domain before the fabric; closing a
     * resource that is still referenced fails with {@code -FI_EBUSY}.
     */
    public static int close(MemorySegment fid) {
        long fn = Dispatch.function(fid, OPS, FiOps.CLOSE);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (int) CLOSE.invokeExact(Dispatch.target(fn), fid);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code int fid->ops->bind(struct fid *fid, struct fid *bfid, uint64_t flags)}: the single slot behind
     * {@code fi_ep_bind} ({@link FidEp#bind}), {@code fi_mr_bind} ({@link FidMr#bind}), {@code fi_av_bind},
     * {@code fi_domain_bind} and {@code fi_pep_bind}.
     */
    public static int bind(MemorySegment fid, MemorySegment bfid, long flags) {
        long fn = Dispatch.function(fid, OPS, FiOps.BIND);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (int) BIND.invokeExact(Dispatch.target(fn), fid, bfid, flags);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code int fi_control(struct fid *fid, int command, void *arg)}, e.g. {@code FI_GETWAIT} with an
     * {@code int*} to get a CQ's fd (CQ opened with {@code FI_WAIT_FD}), or {@code FI_ENABLE} with NULL.
     */
    public static int control(MemorySegment fid, int command, MemorySegment arg) {
        long fn = Dispatch.function(fid, OPS, FiOps.CONTROL);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (int) CONTROL.invokeExact(Dispatch.target(fn), fid, command, arg);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
