package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_rx_attr} (fabric.h): receive-context attributes, reached through {@link FiInfo#rxAttr}.
 * Allocated and freed by libfabric.
 */
public final class FiRxAttr {

    /** {@code struct fi_rx_attr}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("caps"),
            JAVA_LONG.withName("mode"),
            JAVA_LONG.withName("op_flags"),
            JAVA_LONG.withName("msg_order"),
            JAVA_LONG.withName("comp_order"),
            JAVA_LONG.withName("total_buffered_recv"),
            JAVA_LONG.withName("size"),
            JAVA_LONG.withName("iov_limit"))
            .withName("fi_rx_attr");

    /** {@code sizeof(struct fi_rx_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long CAPS = Downcalls.offset(LAYOUT, "caps");
    private static final long MODE = Downcalls.offset(LAYOUT, "mode");
    private static final long OP_FLAGS = Downcalls.offset(LAYOUT, "op_flags");
    private static final long MSG_ORDER = Downcalls.offset(LAYOUT, "msg_order");
    private static final long COMP_ORDER = Downcalls.offset(LAYOUT, "comp_order");
    private static final long TOTAL_BUFFERED_RECV = Downcalls.offset(LAYOUT, "total_buffered_recv");
    private static final long SIZE_FIELD = Downcalls.offset(LAYOUT, "size");
    private static final long IOV_LIMIT = Downcalls.offset(LAYOUT, "iov_limit");

    private FiRxAttr() {
    }

    /** Sizes a pointer returned by libfabric to this struct so its fields can be read; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return Dispatch.sized(pointer, SIZE);
    }

    /** {@code fi_rx_attr.caps}: receive capabilities, a subset of {@code fi_info.caps}. */
    public static long caps(MemorySegment s) {
        return s.get(JAVA_LONG, CAPS);
    }

    /** Sets {@code fi_rx_attr.caps}. */
    public static void setCaps(MemorySegment s, long value) {
        s.set(JAVA_LONG, CAPS, value);
    }

    /** {@code fi_rx_attr.mode}: mode bits the provider requires for receives. */
    public static long mode(MemorySegment s) {
        return s.get(JAVA_LONG, MODE);
    }

    /** Sets {@code fi_rx_attr.mode}. */
    public static void setMode(MemorySegment s, long value) {
        s.set(JAVA_LONG, MODE, value);
    }

    /** {@code fi_rx_attr.op_flags}. */
    public static long opFlags(MemorySegment s) {
        return s.get(JAVA_LONG, OP_FLAGS);
    }

    /** Sets {@code fi_rx_attr.op_flags}. */
    public static void setOpFlags(MemorySegment s, long value) {
        s.set(JAVA_LONG, OP_FLAGS, value);
    }

    /** {@code fi_rx_attr.msg_order}. */
    public static long msgOrder(MemorySegment s) {
        return s.get(JAVA_LONG, MSG_ORDER);
    }

    /** Sets {@code fi_rx_attr.msg_order}. */
    public static void setMsgOrder(MemorySegment s, long value) {
        s.set(JAVA_LONG, MSG_ORDER, value);
    }

    /** {@code fi_rx_attr.comp_order}. */
    public static long compOrder(MemorySegment s) {
        return s.get(JAVA_LONG, COMP_ORDER);
    }

    /** Sets {@code fi_rx_attr.comp_order}. */
    public static void setCompOrder(MemorySegment s, long value) {
        s.set(JAVA_LONG, COMP_ORDER, value);
    }

    /** {@code fi_rx_attr.total_buffered_recv}. */
    public static long totalBufferedRecv(MemorySegment s) {
        return s.get(JAVA_LONG, TOTAL_BUFFERED_RECV);
    }

    /** Sets {@code fi_rx_attr.total_buffered_recv}. */
    public static void setTotalBufferedRecv(MemorySegment s, long value) {
        s.set(JAVA_LONG, TOTAL_BUFFERED_RECV, value);
    }

    /** {@code fi_rx_attr.size}: receive queue depth. */
    public static long size(MemorySegment s) {
        return s.get(JAVA_LONG, SIZE_FIELD);
    }

    /** Sets {@code fi_rx_attr.size}. */
    public static void setSize(MemorySegment s, long value) {
        s.set(JAVA_LONG, SIZE_FIELD, value);
    }

    /** {@code fi_rx_attr.iov_limit}. */
    public static long iovLimit(MemorySegment s) {
        return s.get(JAVA_LONG, IOV_LIMIT);
    }

    /** Sets {@code fi_rx_attr.iov_limit}. */
    public static void setIovLimit(MemorySegment s, long value) {
        s.set(JAVA_LONG, IOV_LIMIT, value);
    }
}
