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
 * {@code struct fi_cq_attr} (fi_eq.h): input of {@link FidDomain#cqOpen}. Owned by the caller; libfabric copies
 * what it needs during the call. The four 32-bit fields pair up, so there is no padding.
 */
public final class FiCqAttr {

    /** {@code struct fi_cq_attr}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("size"),
            JAVA_LONG.withName("flags"),
            JAVA_INT.withName("format"),
            JAVA_INT.withName("wait_obj"),
            JAVA_INT.withName("signaling_vector"),
            JAVA_INT.withName("wait_cond"),
            ADDRESS.withName("wait_set"))
            .withName("fi_cq_attr");

    /** {@code sizeof(struct fi_cq_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long SIZE_FIELD = Downcalls.offset(LAYOUT, "size");
    private static final long FLAGS = Downcalls.offset(LAYOUT, "flags");
    private static final long FORMAT = Downcalls.offset(LAYOUT, "format");
    private static final long WAIT_OBJ = Downcalls.offset(LAYOUT, "wait_obj");
    private static final long SIGNALING_VECTOR = Downcalls.offset(LAYOUT, "signaling_vector");
    private static final long WAIT_COND = Downcalls.offset(LAYOUT, "wait_cond");
    private static final long WAIT_SET = Downcalls.offset(LAYOUT, "wait_set");

    private FiCqAttr() {
    }

    /** A zeroed instance owned by {@code arena}; 0/NULL fields ask for the provider's default. */
    public static MemorySegment allocate(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /** {@code fi_cq_attr.size}: minimum number of entries (0 = provider default). */
    public static long size(MemorySegment s) {
        return s.get(JAVA_LONG, SIZE_FIELD);
    }

    /** Sets {@code fi_cq_attr.size}. */
    public static void setSize(MemorySegment s, long value) {
        s.set(JAVA_LONG, SIZE_FIELD, value);
    }

    /** {@code fi_cq_attr.flags}. */
    public static long flags(MemorySegment s) {
        return s.get(JAVA_LONG, FLAGS);
    }

    /** Sets {@code fi_cq_attr.flags}. */
    public static void setFlags(MemorySegment s, long value) {
        s.set(JAVA_LONG, FLAGS, value);
    }

    /**
     * {@code fi_cq_attr.format}: {@code enum fi_cq_format}; {@code FI_CQ_FORMAT_DATA} makes entries {@link
     * FiCqDataEntry}.
     */
    public static int format(MemorySegment s) {
        return s.get(JAVA_INT, FORMAT);
    }

    /** Sets {@code fi_cq_attr.format}. */
    public static void setFormat(MemorySegment s, int value) {
        s.set(JAVA_INT, FORMAT, value);
    }

    /**
     * {@code fi_cq_attr.wait_obj}: {@code enum fi_wait_obj}; with {@code FI_WAIT_NONE} the CQ may only be polled.
     * Providers write the object they actually chose back here during {@code fi_cq_open}.
     */
    public static int waitObj(MemorySegment s) {
        return s.get(JAVA_INT, WAIT_OBJ);
    }

    /** Sets {@code fi_cq_attr.wait_obj}. */
    public static void setWaitObj(MemorySegment s, int value) {
        s.set(JAVA_INT, WAIT_OBJ, value);
    }

    /** {@code fi_cq_attr.signaling_vector}. */
    public static int signalingVector(MemorySegment s) {
        return s.get(JAVA_INT, SIGNALING_VECTOR);
    }

    /** Sets {@code fi_cq_attr.signaling_vector}. */
    public static void setSignalingVector(MemorySegment s, int value) {
        s.set(JAVA_INT, SIGNALING_VECTOR, value);
    }

    /** {@code fi_cq_attr.wait_cond}: {@code enum fi_cq_wait_cond}. */
    public static int waitCond(MemorySegment s) {
        return s.get(JAVA_INT, WAIT_COND);
    }

    /** Sets {@code fi_cq_attr.wait_cond}. */
    public static void setWaitCond(MemorySegment s, int value) {
        s.set(JAVA_INT, WAIT_COND, value);
    }

    /** {@code fi_cq_attr.wait_set}: {@code struct fid_wait*} for {@code FI_WAIT_SET}. */
    public static MemorySegment waitSet(MemorySegment s) {
        return s.get(ADDRESS, WAIT_SET);
    }

    /** Sets {@code fi_cq_attr.wait_set}. */
    public static void setWaitSet(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, WAIT_SET, value);
    }
}
