package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fid_mr} (fi_domain.h), created by {@link FidDomain#mrReg}/{@link FidDomain#mrRegattr}:
 * {@code fi_mr_desc} and {@code fi_mr_key} are plain field reads, {@code fi_mr_bind} and {@code fi_mr_enable}
 * go through the generic {@link FiOps} table.
 */
public final class FidMr {

    /** {@code struct fid_mr}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            Fid.LAYOUT.withName("fid"),
            ADDRESS.withName("mem_desc"),
            JAVA_LONG.withName("key"))
            .withName("fid_mr");

    /** {@code sizeof(struct fid_mr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long MEM_DESC = Downcalls.offset(LAYOUT, "mem_desc");
    private static final long KEY = Downcalls.offset(LAYOUT, "key");

    private FidMr() {
    }

    /** Sizes a {@code struct fid_mr*}; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return Dispatch.sized(pointer, SIZE);
    }

    /**
     * {@code void *fi_mr_desc(struct fid_mr *mr)}: the local descriptor to pass as {@code desc} when the domain's
     * mr_mode has {@code FI_MR_LOCAL} (NULL is allowed otherwise).
     */
    public static MemorySegment desc(MemorySegment mr) {
        return of(mr).get(ADDRESS, MEM_DESC);
    }

    /**
     * {@code uint64_t fi_mr_key(struct fid_mr *mr)}: the remote key a peer needs for RMA/atomics on this region
     * ({@code FI_KEY_NOTAVAIL} until an {@code FI_MR_ENDPOINT} region is enabled).
     */
    public static long key(MemorySegment mr) {
        return of(mr).get(JAVA_LONG, KEY);
    }

    /**
     * {@code int fi_mr_bind(struct fid_mr *mr, struct fid *bfid, uint64_t flags)}: with {@code FI_MR_ENDPOINT},
     * associates the region with the endpoint that will use it (then {@link #enable}).
     */
    public static int bind(MemorySegment mr, MemorySegment bfid, long flags) {
        return Fid.bind(mr, bfid, flags);
    }

    /** {@code int fi_mr_enable(struct fid_mr *mr)}: {@code fi_control(mr, FI_ENABLE, NULL)}. */
    public static int enable(MemorySegment mr) {
        return Fid.control(mr, FiConstants.FI_ENABLE, MemorySegment.NULL);
    }
}
