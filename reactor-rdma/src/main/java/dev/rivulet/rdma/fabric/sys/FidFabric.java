package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;

/**
 * {@code struct fid_fabric} (fabric.h), opened by {@link Libfabric#fabric}, and its inline call
 * {@code fi_domain}. Close with {@link Fid#close} after every domain of it. 4 bytes of tail padding follow
 * {@code api_version}.
 */
public final class FidFabric {

    /** {@code struct fid_fabric}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            Fid.LAYOUT.withName("fid"),
            ADDRESS.withName("ops"),
            JAVA_INT.withName("api_version"),
            MemoryLayout.paddingLayout(4))
            .withName("fid_fabric");

    /** {@code sizeof(struct fid_fabric)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long OPS = Downcalls.offset(LAYOUT, "ops");
    private static final long API_VERSION = Downcalls.offset(LAYOUT, "api_version");

    private static final MethodHandle DOMAIN = Dispatch.downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, ADDRESS));

    private static final MethodHandle TRYWAIT = Dispatch.downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));

    private FidFabric() {
    }

    /** Sizes a {@code struct fid_fabric*}; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return Dispatch.sized(pointer, SIZE);
    }

    /** {@code fid_fabric.api_version}: the version the fabric was opened with. */
    public static int apiVersion(MemorySegment fabric) {
        return of(fabric).get(JAVA_INT, API_VERSION);
    }

    /**
     * {@code int fi_domain(struct fid_fabric *fabric, struct fi_info *info, struct fid_domain **domain,
     * void *context)}.
     *
     * @param domain receives the {@code fid_domain*}; wrap it with {@link FidDomain#of}
     */
    public static int domain(MemorySegment fabric, MemorySegment info, MemorySegment domain, MemorySegment context) {
        long fn = Dispatch.function(fabric, OPS, FiOpsFabric.DOMAIN);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (int) DOMAIN.invokeExact(Dispatch.target(fn), fabric, info, domain, context);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code int fi_trywait(struct fid_fabric *fabric, struct fid **fids, int count)}: 0 when it is safe to block on
     * the wait objects of {@code fids}, {@code -FI_EAGAIN} when completions are (or may be) ready and the caller must
     * read its queues first. Drives the provider's progress as a side effect.
     */
    public static int trywait(MemorySegment fabric, MemorySegment fids, int count) {
        long fn = Dispatch.function(fabric, OPS, FiOpsFabric.TRYWAIT);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (int) TRYWAIT.invokeExact(Dispatch.target(fn), fabric, fids, count);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
