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
 * {@code struct fi_av_attr} (fi_domain.h): input of {@link FidDomain#avOpen}. Owned by the caller.
 */
public final class FiAvAttr {

    /** {@code struct fi_av_attr}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("type"),
            JAVA_INT.withName("rx_ctx_bits"),
            JAVA_LONG.withName("count"),
            JAVA_LONG.withName("ep_per_node"),
            ADDRESS.withName("name"),
            ADDRESS.withName("map_addr"),
            JAVA_LONG.withName("flags"))
            .withName("fi_av_attr");

    /** {@code sizeof(struct fi_av_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long TYPE = Downcalls.offset(LAYOUT, "type");
    private static final long RX_CTX_BITS = Downcalls.offset(LAYOUT, "rx_ctx_bits");
    private static final long COUNT = Downcalls.offset(LAYOUT, "count");
    private static final long EP_PER_NODE = Downcalls.offset(LAYOUT, "ep_per_node");
    private static final long NAME = Downcalls.offset(LAYOUT, "name");
    private static final long MAP_ADDR = Downcalls.offset(LAYOUT, "map_addr");
    private static final long FLAGS = Downcalls.offset(LAYOUT, "flags");

    private FiAvAttr() {
    }

    /** A zeroed instance owned by {@code arena}; 0/NULL fields ask for the provider's default. */
    public static MemorySegment allocate(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /** {@code fi_av_attr.type}: {@code enum fi_av_type}; {@code FI_AV_UNSPEC} lets the provider choose. */
    public static int type(MemorySegment s) {
        return s.get(JAVA_INT, TYPE);
    }

    /** Sets {@code fi_av_attr.type}. */
    public static void setType(MemorySegment s, int value) {
        s.set(JAVA_INT, TYPE, value);
    }

    /** {@code fi_av_attr.rx_ctx_bits}. */
    public static int rxCtxBits(MemorySegment s) {
        return s.get(JAVA_INT, RX_CTX_BITS);
    }

    /** Sets {@code fi_av_attr.rx_ctx_bits}. */
    public static void setRxCtxBits(MemorySegment s, int value) {
        s.set(JAVA_INT, RX_CTX_BITS, value);
    }

    /** {@code fi_av_attr.count}: expected number of addresses (0 = provider default). */
    public static long count(MemorySegment s) {
        return s.get(JAVA_LONG, COUNT);
    }

    /** Sets {@code fi_av_attr.count}. */
    public static void setCount(MemorySegment s, long value) {
        s.set(JAVA_LONG, COUNT, value);
    }

    /** {@code fi_av_attr.ep_per_node}. */
    public static long epPerNode(MemorySegment s) {
        return s.get(JAVA_LONG, EP_PER_NODE);
    }

    /** Sets {@code fi_av_attr.ep_per_node}. */
    public static void setEpPerNode(MemorySegment s, long value) {
        s.set(JAVA_LONG, EP_PER_NODE, value);
    }

    /** {@code fi_av_attr.name}: name of a shared AV ({@code const char*}), normally NULL. */
    public static MemorySegment name(MemorySegment s) {
        return s.get(ADDRESS, NAME);
    }

    /** Sets {@code fi_av_attr.name}. */
    public static void setName(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, NAME, value);
    }

    /** {@code fi_av_attr.map_addr}. */
    public static MemorySegment mapAddr(MemorySegment s) {
        return s.get(ADDRESS, MAP_ADDR);
    }

    /** Sets {@code fi_av_attr.map_addr}. */
    public static void setMapAddr(MemorySegment s, MemorySegment value) {
        s.set(ADDRESS, MAP_ADDR, value);
    }

    /** {@code fi_av_attr.flags}. */
    public static long flags(MemorySegment s) {
        return s.get(JAVA_LONG, FLAGS);
    }

    /** Sets {@code fi_av_attr.flags}. */
    public static void setFlags(MemorySegment s, long value) {
        s.set(JAVA_LONG, FLAGS, value);
    }
}
