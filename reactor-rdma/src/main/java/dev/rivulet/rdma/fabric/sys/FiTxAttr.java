package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_tx_attr} (fabric.h): transmit-context attributes, reached through {@link FiInfo#txAttr}.
 * The struct is allocated and freed by libfabric ({@code fi_allocinfo}/{@code fi_freeinfo}); Java only reads and
 * writes fields. 4 bytes of tail padding follow {@code tclass}.
 */
public final class FiTxAttr {

    /** {@code struct fi_tx_attr}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("caps"),
            JAVA_LONG.withName("mode"),
            JAVA_LONG.withName("op_flags"),
            JAVA_LONG.withName("msg_order"),
            JAVA_LONG.withName("comp_order"),
            JAVA_LONG.withName("inject_size"),
            JAVA_LONG.withName("size"),
            JAVA_LONG.withName("iov_limit"),
            JAVA_LONG.withName("rma_iov_limit"),
            JAVA_INT.withName("tclass"),
            MemoryLayout.paddingLayout(4))
            .withName("fi_tx_attr");

    /** {@code sizeof(struct fi_tx_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long CAPS = Downcalls.offset(LAYOUT, "caps");
    private static final long MODE = Downcalls.offset(LAYOUT, "mode");
    private static final long OP_FLAGS = Downcalls.offset(LAYOUT, "op_flags");
    private static final long MSG_ORDER = Downcalls.offset(LAYOUT, "msg_order");
    private static final long COMP_ORDER = Downcalls.offset(LAYOUT, "comp_order");
    private static final long INJECT_SIZE = Downcalls.offset(LAYOUT, "inject_size");
    private static final long SIZE_FIELD = Downcalls.offset(LAYOUT, "size");
    private static final long IOV_LIMIT = Downcalls.offset(LAYOUT, "iov_limit");
    private static final long RMA_IOV_LIMIT = Downcalls.offset(LAYOUT, "rma_iov_limit");
    private static final long TCLASS = Downcalls.offset(LAYOUT, "tclass");

    private FiTxAttr() {
    }

    /** Sizes a pointer returned by libfabric to this struct so its fields can be read; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return Dispatch.sized(pointer, SIZE);
    }

    /** {@code fi_tx_attr.caps}: transmit capabilities, a subset of {@code fi_info.caps}. */
    public static long caps(MemorySegment s) {
        return s.get(JAVA_LONG, CAPS);
    }

    /** Sets {@code fi_tx_attr.caps}. */
    public static void setCaps(MemorySegment s, long value) {
        s.set(JAVA_LONG, CAPS, value);
    }

    /** {@code fi_tx_attr.mode}: mode bits the provider requires for transmits ({@code FI_CONTEXT}...). */
    public static long mode(MemorySegment s) {
        return s.get(JAVA_LONG, MODE);
    }

    /** Sets {@code fi_tx_attr.mode}. */
    public static void setMode(MemorySegment s, long value) {
        s.set(JAVA_LONG, MODE, value);
    }

    /** {@code fi_tx_attr.op_flags}: default flags of operations posted without explicit flags. */
    public static long opFlags(MemorySegment s) {
        return s.get(JAVA_LONG, OP_FLAGS);
    }

    /** Sets {@code fi_tx_attr.op_flags}. */
    public static void setOpFlags(MemorySegment s, long value) {
        s.set(JAVA_LONG, OP_FLAGS, value);
    }

    /** {@code fi_tx_attr.msg_order}: {@code FI_ORDER_*} guarantees between transmits. */
    public static long msgOrder(MemorySegment s) {
        return s.get(JAVA_LONG, MSG_ORDER);
    }

    /** Sets {@code fi_tx_attr.msg_order}. */
    public static void setMsgOrder(MemorySegment s, long value) {
        s.set(JAVA_LONG, MSG_ORDER, value);
    }

    /** {@code fi_tx_attr.comp_order}: completion ordering. */
    public static long compOrder(MemorySegment s) {
        return s.get(JAVA_LONG, COMP_ORDER);
    }

    /** Sets {@code fi_tx_attr.comp_order}. */
    public static void setCompOrder(MemorySegment s, long value) {
        s.set(JAVA_LONG, COMP_ORDER, value);
    }

    /** {@code fi_tx_attr.inject_size}: largest payload {@code fi_inject*} accepts. */
    public static long injectSize(MemorySegment s) {
        return s.get(JAVA_LONG, INJECT_SIZE);
    }

    /** Sets {@code fi_tx_attr.inject_size}. */
    public static void setInjectSize(MemorySegment s, long value) {
        s.set(JAVA_LONG, INJECT_SIZE, value);
    }

    /** {@code fi_tx_attr.size}: transmit queue depth. */
    public static long size(MemorySegment s) {
        return s.get(JAVA_LONG, SIZE_FIELD);
    }

    /** Sets {@code fi_tx_attr.size}. */
    public static void setSize(MemorySegment s, long value) {
        s.set(JAVA_LONG, SIZE_FIELD, value);
    }

    /** {@code fi_tx_attr.iov_limit}. */
    public static long iovLimit(MemorySegment s) {
        return s.get(JAVA_LONG, IOV_LIMIT);
    }

    /** Sets {@code fi_tx_attr.iov_limit}. */
    public static void setIovLimit(MemorySegment s, long value) {
        s.set(JAVA_LONG, IOV_LIMIT, value);
    }

    /** {@code fi_tx_attr.rma_iov_limit}. */
    public static long rmaIovLimit(MemorySegment s) {
        return s.get(JAVA_LONG, RMA_IOV_LIMIT);
    }

    /** Sets {@code fi_tx_attr.rma_iov_limit}. */
    public static void setRmaIovLimit(MemorySegment s, long value) {
        s.set(JAVA_LONG, RMA_IOV_LIMIT, value);
    }

    /** {@code fi_tx_attr.tclass}: traffic class ({@code uint32_t}). */
    public static int tclass(MemorySegment s) {
        return s.get(JAVA_INT, TCLASS);
    }

    /** Sets {@code fi_tx_attr.tclass}. */
    public static void setTclass(MemorySegment s, int value) {
        s.set(JAVA_INT, TCLASS, value);
    }
}
