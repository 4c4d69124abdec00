package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_cq_err_entry} (fi_eq.h): one error completion, filled by {@link FidCq#readerr} after
 * {@code fi_cq_read} returned {@code -FI_EAVAIL}. Owned by the caller.
 *
 * <p>Zero it before each {@code readerr}: with API &ge; 1.5 an input {@code err_data_size} of 0 tells the
 * provider to point {@code err_data} at its own buffer, valid until the next read of that CQ; a non-zero size
 * means {@code err_data} is a caller buffer of that size.
 */
public final class FiCqErrEntry {

    /** {@code struct fi_cq_err_entry}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("op_context"),
            JAVA_LONG.withName("flags"),
            JAVA_LONG.withName("len"),
            ADDRESS.withName("buf"),
            JAVA_LONG.withName("data"),
            JAVA_LONG.withName("tag"),
            JAVA_LONG.withName("olen"),
            JAVA_INT.withName("err"),
            JAVA_INT.withName("prov_errno"),
            ADDRESS.withName("err_data"),
            JAVA_LONG.withName("err_data_size"))
            .withName("fi_cq_err_entry");

    /** {@code sizeof(struct fi_cq_err_entry)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long OP_CONTEXT = Downcalls.offset(LAYOUT, "op_context");
    private static final long FLAGS = Downcalls.offset(LAYOUT, "flags");
    private static final long LEN = Downcalls.offset(LAYOUT, "len");
    private static final long BUF = Downcalls.offset(LAYOUT, "buf");
    private static final long DATA = Downcalls.offset(LAYOUT, "data");
    private static final long TAG = Downcalls.offset(LAYOUT, "tag");
    private static final long OLEN = Downcalls.offset(LAYOUT, "olen");
    private static final long ERR = Downcalls.offset(LAYOUT, "err");
    private static final long PROV_ERRNO = Downcalls.offset(LAYOUT, "prov_errno");
    private static final long ERR_DATA = Downcalls.offset(LAYOUT, "err_data");
    private static final long ERR_DATA_SIZE = Downcalls.offset(LAYOUT, "err_data_size");

    private FiCqErrEntry() {
    }

    /** A zeroed instance owned by {@code arena}. */
    public static MemorySegment allocate(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /** {@code fi_cq_err_entry.op_context}: the context passed to the failed operation. */
    public static MemorySegment opContext(MemorySegment s) {
        return s.get(ADDRESS, OP_CONTEXT);
    }

    /** {@code fi_cq_err_entry.flags}: {@code FI_SEND}, {@code FI_RMA | FI_WRITE}... describing the operation. */
    public static long flags(MemorySegment s) {
        return s.get(JAVA_LONG, FLAGS);
    }

    /** {@code fi_cq_err_entry.len}. */
    public static long len(MemorySegment s) {
        return s.get(JAVA_LONG, LEN);
    }

    /** {@code fi_cq_err_entry.buf}. */
    public static MemorySegment buf(MemorySegment s) {
        return s.get(ADDRESS, BUF);
    }

    /** {@code fi_cq_err_entry.data}. */
    public static long data(MemorySegment s) {
        return s.get(JAVA_LONG, DATA);
    }

    /** {@code fi_cq_err_entry.tag}. */
    public static long tag(MemorySegment s) {
        return s.get(JAVA_LONG, TAG);
    }

    /** {@code fi_cq_err_entry.olen}: overflow length of a truncated receive. */
    public static long olen(MemorySegment s) {
        return s.get(JAVA_LONG, OLEN);
    }

    /** {@code fi_cq_err_entry.err}: positive fabric errno, for {@link Libfabric#strerror}. */
    public static int err(MemorySegment s) {
        return s.get(JAVA_INT, ERR);
    }

    /** {@code fi_cq_err_entry.prov_errno}: provider-specific code, for {@link FidCq#strerror}. */
    public static int provErrno(MemorySegment s) {
        return s.get(JAVA_INT, PROV_ERRNO);
    }

    /** {@code fi_cq_err_entry.err_data}: provider error data (see class comment). */
    public static MemorySegment errData(MemorySegment s) {
        return s.get(ADDRESS, ERR_DATA);
    }

    /** Sets {@code fi_cq_err_entry.err_data}. */
    public static void setErrData(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, ERR_DATA, value);
    }

    /** {@code fi_cq_err_entry.err_data_size}. */
    public static long errDataSize(MemorySegment s) {
        return s.get(JAVA_LONG, ERR_DATA_SIZE);
    }

    /** Sets {@code fi_cq_err_entry.err_data_size}. */
    public static void setErrDataSize(MemorySegment s, long value) {
        s.set(JAVA_LONG, ERR_DATA_SIZE, value);
    }
}
