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
 * {@code struct fid_domain} (fi_domain.h), opened by {@link FidFabric#domain}, and its inline calls:
 * {@code fi_endpoint}, {@code fi_cq_open}, {@code fi_av_open} through {@code domain->ops}, and
 * {@code fi_mr_reg}/{@code fi_mr_regattr} through the separate {@code domain->mr} table.
 * {@code fi_domain_bind} is {@link Fid#bind}.
 */
public final class FidDomain {

    /** {@code struct fid_domain}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            Fid.LAYOUT.withName("fid"),
            ADDRESS.withName("ops"),
            ADDRESS.withName("mr"))
            .withName("fid_domain");

    /** {@code sizeof(struct fid_domain)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long OPS = Downcalls.offset(LAYOUT, "ops");
    private static final long MR = Downcalls.offset(LAYOUT, "mr");

    /**
     * {@code int (*)(domain, attr-or-info, struct fid_xx **, void *context)}: endpoint, cq_open and av_open share it.
     */
    private static final MethodHandle OPEN = Dispatch.downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle MR_REG = Dispatch.downcall(FunctionDescriptor.of(JAVA_INT,
            ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS));
    private static final MethodHandle MR_REGATTR = Dispatch.downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));

    private FidDomain() {
    }

    /** Sizes a {@code struct fid_domain*}; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return Dispatch.sized(pointer, SIZE);
    }

    /**
     * {@code int fi_endpoint(struct fid_domain *domain, struct fi_info *info, struct fid_ep **ep, void *context)}.
     * The endpoint must then be bound to an AV and CQ(s) ({@link FidEp#bind}) and enabled ({@link FidEp#enable}).
     *
     * @param ep receives the {@code fid_ep*}; wrap it with {@link FidEp#of}
     */
    public static int endpoint(MemorySegment domain, MemorySegment info, MemorySegment ep, MemorySegment context) {
        return open(domain, FiOpsDomain.ENDPOINT, info, ep, context);
    }

    /**
     * {@code int fi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr, struct fid_cq **cq, void *context)}.
     *
     * @param attr a {@link FiCqAttr}
     * @param cq   receives the {@code fid_cq*}; wrap it with {@link FidCq#of}
     */
    public static int cqOpen(MemorySegment domain, MemorySegment attr, MemorySegment cq, MemorySegment context) {
        return open(domain, FiOpsDomain.CQ_OPEN, attr, cq, context);
    }

    /**
     * {@code int fi_av_open(struct fid_domain *domain, struct fi_av_attr *attr, struct fid_av **av, void *context)}.
     *
     * @param attr a {@link FiAvAttr}
     * @param av   receives the {@code fid_av*}; wrap it with {@link FidAv#of}
     */
    public static int avOpen(MemorySegment domain, MemorySegment attr, MemorySegment av, MemorySegment context) {
        return open(domain, FiOpsDomain.AV_OPEN, attr, av, context);
    }

    /**
     * {@code int fi_mr_reg(struct fid_domain *domain, const void *buf, size_t len, uint64_t access,
     * uint64_t offset, uint64_t requested_key, uint64_t flags, struct fid_mr **mr, void *context)}.
     *
     * <p>{@code offset} is reserved and must be 0. Without {@code FI_MR_PROV_KEY} in the domain's mr_mode,
     * {@code requested_key} must be unique within the domain (a duplicate fails {@code -FI_ENOKEY}); with it, read
     * the key from {@link FidMr#key}. With {@code FI_MR_ENDPOINT} the region is created disabled: bind it
     * ({@link FidMr#bind}) and enable it ({@link FidMr#enable}) first. With {@code FI_MR_ALLOCATED} the pages must
     * be backed now (Arena memory is zeroed at allocation, so it is).
     *
     * @param access {@code FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE}
     * @param mr     receives the {@code fid_mr*}; wrap it with {@link FidMr#of}
     */
    public static int mrReg(MemorySegment domain, MemorySegment buf, long len, long access, long offset,
                            long requestedKey, long flags, MemorySegment mr, MemorySegment context) {
        long fn = Dispatch.function(domain, MR, FiOpsMr.REG);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (int) MR_REG.invokeExact(Dispatch.target(fn), domain, buf, len, access, offset, requestedKey,
                    flags, mr, context);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code int fi_mr_regattr(struct fid_domain *domain, const struct fi_mr_attr *attr, uint64_t flags,
     * struct fid_mr **mr)}: the registration that can describe device memory ({@code iface}/{@code device}).
     *
     * @param attr a {@link FiMrAttr}
     */
    public static int mrRegattr(MemorySegment domain, MemorySegment attr, long flags, MemorySegment mr) {
        long fn = Dispatch.function(domain, MR, FiOpsMr.REGATTR);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (int) MR_REGATTR.invokeExact(Dispatch.target(fn), domain, attr, flags, mr);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private static int open(MemorySegment domain, long slot, MemorySegment attr, MemorySegment out,
                            MemorySegment context) {
        long fn = Dispatch.function(domain, OPS, slot);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (int) OPEN.invokeExact(Dispatch.target(fn), domain, attr, out, context);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
