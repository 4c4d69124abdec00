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
 * {@code struct fid_av} (fi_domain.h), an address vector opened by {@link FidDomain#avOpen}, and its inline calls.
 * It maps the opaque names from {@link FidEp#getname} to the {@code fi_addr_t} handles that transfers take.
 */
public final class FidAv {

    /** {@code struct fid_av}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            Fid.LAYOUT.withName("fid"),
            ADDRESS.withName("ops"))
            .withName("fid_av");

    /** {@code sizeof(struct fid_av)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long OPS = Downcalls.offset(LAYOUT, "ops");

    private static final MethodHandle INSERT = Dispatch.downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS));
    private static final MethodHandle REMOVE = Dispatch.downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle LOOKUP = Dispatch.downcall(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
    private static final MethodHandle STRADDR = Dispatch.downcall(
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS));

    private FidAv() {
    }

    /** Sizes a {@code struct fid_av*}; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return Dispatch.sized(pointer, SIZE);
    }

    /**
     * {@code int fi_av_insert(struct fid_av *av, const void *addr, size_t count, fi_addr_t *fi_addr,
     * uint64_t flags, void *context)}.
     *
     * @param addr    {@code count} names back to back, each as {@link FidEp#getname} returned it
     * @param fiAddr  receives {@code count} {@code fi_addr_t}s ({@code FI_ADDR_NOTAVAIL} for failures)
     * @return the number inserted (anything other than {@code count} is a failure), or a negative fabric errno
     */
    public static int insert(MemorySegment av, MemorySegment addr, long count, MemorySegment fiAddr, long flags,
                             MemorySegment context) {
        long fn = Dispatch.function(av, OPS, FiOpsAv.INSERT);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (int) INSERT.invokeExact(Dispatch.target(fn), av, addr, count, fiAddr, flags, context);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code int fi_av_remove(struct fid_av *av, fi_addr_t *fi_addr, size_t count, uint64_t flags)}. */
    public static int remove(MemorySegment av, MemorySegment fiAddr, long count, long flags) {
        long fn = Dispatch.function(av, OPS, FiOpsAv.REMOVE);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (int) REMOVE.invokeExact(Dispatch.target(fn), av, fiAddr, count, flags);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code int fi_av_lookup(struct fid_av *av, fi_addr_t fi_addr, void *addr, size_t *addrlen)}: the name
     * behind an {@code fi_addr_t}; {@code *addrlen} is the buffer size in and the name length out.
     */
    public static int lookup(MemorySegment av, long fiAddr, MemorySegment addr, MemorySegment addrlen) {
        long fn = Dispatch.function(av, OPS, FiOpsAv.LOOKUP);
        if (fn == 0) {
            return -FiConstants.FI_ENOSYS;
        }
        try {
            return (int) LOOKUP.invokeExact(Dispatch.target(fn), av, fiAddr, addr, addrlen);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code const char *fi_av_straddr(struct fid_av *av, const void *addr, char *buf, size_t *len)}: a printable
     * form of a name, written into {@code buf} ({@code *len} in: its size, out: the length needed).
     *
     * @return {@code buf}, or NULL if the provider does not implement it
     */
    public static MemorySegment straddr(MemorySegment av, MemorySegment addr, MemorySegment buf, MemorySegment len) {
        long fn = Dispatch.function(av, OPS, FiOpsAv.STRADDR);
        if (fn == 0) {
            return MemorySegment.NULL;
        }
        try {
            return (MemorySegment) STRADDR.invokeExact(Dispatch.target(fn), av, addr, buf, len);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
