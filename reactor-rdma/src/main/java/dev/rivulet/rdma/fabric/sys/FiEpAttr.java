package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_ep_attr} (fabric.h): endpoint attributes, reached through {@link FiInfo#epAttr}. Allocated and
 * freed by libfabric; {@code fi_freeinfo} also frees {@code auth_key}. 4 bytes of padding follow
 * {@code protocol_version} (the three 32-bit fields end at 12, {@code max_msg_size} is 8-aligned).
 */
public final class FiEpAttr {

    /** {@code struct fi_ep_attr}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("type"),
            JAVA_INT.withName("protocol"),
            JAVA_INT.withName("protocol_version"),
            MemoryLayout.paddingLayout(4),
            JAVA_LONG.withName("max_msg_size"),
            JAVA_LONG.withName("msg_prefix_size"),
            JAVA_LONG.withName("max_order_raw_size"),
            JAVA_LONG.withName("max_order_war_size"),
            JAVA_LONG.withName("max_order_waw_size"),
            JAVA_LONG.withName("mem_tag_format"),
            JAVA_LONG.withName("tx_ctx_cnt"),
            JAVA_LONG.withName("rx_ctx_cnt"),
            JAVA_LONG.withName("auth_key_size"),
            ADDRESS.withName("auth_key"))
            .withName("fi_ep_attr");

    /** {@code sizeof(struct fi_ep_attr)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long TYPE = Downcalls.offset(LAYOUT, "type");
    private static final long PROTOCOL = Downcalls.offset(LAYOUT, "protocol");
    private static final long PROTOCOL_VERSION = Downcalls.offset(LAYOUT, "protocol_version");
    private static final long MAX_MSG_SIZE = Downcalls.offset(LAYOUT, "max_msg_size");
    private static final long MSG_PREFIX_SIZE = Downcalls.offset(LAYOUT, "msg_prefix_size");
    private static final long MAX_ORDER_RAW_SIZE = Downcalls.offset(LAYOUT, "max_order_raw_size");
    private static final long MAX_ORDER_WAR_SIZE = Downcalls.offset(LAYOUT, "max_order_war_size");
    private static final long MAX_ORDER_WAW_SIZE = Downcalls.offset(LAYOUT, "max_order_waw_size");
    private static final long MEM_TAG_FORMAT = Downcalls.offset(LAYOUT, "mem_tag_format");
    private static final long TX_CTX_CNT = Downcalls.offset(LAYOUT, "tx_ctx_cnt");
    private static final long RX_CTX_CNT = Downcalls.offset(LAYOUT, "rx_ctx_cnt");
    private static final long AUTH_KEY_SIZE = Downcalls.offset(LAYOUT, "auth_key_size");
    private static final long AUTH_KEY = Downcalls.offset(LAYOUT, "auth_key");

    private FiEpAttr() {
    }

    /** Sizes a pointer returned by libfabric to this struct so its fields can be read; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return Dispatch.sized(pointer, SIZE);
    }

    /** {@code fi_ep_attr.type}: {@code enum fi_ep_type}: {@code FI_EP_RDM}, {@code FI_EP_MSG}.... */
    public static int type(MemorySegment s) {
        return s.get(JAVA_INT, TYPE);
    }

    /** Sets {@code fi_ep_attr.type}. */
    public static void setType(MemorySegment s, int value) {
        s.set(JAVA_INT, TYPE, value);
    }

    /** {@code fi_ep_attr.protocol}: provider wire protocol ({@code FI_PROTO_*}). */
    public static int protocol(MemorySegment s) {
        return s.get(JAVA_INT, PROTOCOL);
    }

    /** Sets {@code fi_ep_attr.protocol}. */
    public static void setProtocol(MemorySegment s, int value) {
        s.set(JAVA_INT, PROTOCOL, value);
    }

    /** {@code fi_ep_attr.protocol_version}. */
    public static int protocolVersion(MemorySegment s) {
        return s.get(JAVA_INT, PROTOCOL_VERSION);
    }

    /** Sets {@code fi_ep_attr.protocol_version}. */
    public static void setProtocolVersion(MemorySegment s, int value) {
        s.set(JAVA_INT, PROTOCOL_VERSION, value);
    }

    /** {@code fi_ep_attr.max_msg_size}: largest message; {@code SIZE_MAX} reads as -1. */
    public static long maxMsgSize(MemorySegment s) {
        return s.get(JAVA_LONG, MAX_MSG_SIZE);
    }

    /** Sets {@code fi_ep_attr.max_msg_size}. */
    public static void setMaxMsgSize(MemorySegment s, long value) {
        s.set(JAVA_LONG, MAX_MSG_SIZE, value);
    }

    /** {@code fi_ep_attr.msg_prefix_size}: bytes reserved in front of buffers when {@code FI_MSG_PREFIX} is in mode. */
    public static long msgPrefixSize(MemorySegment s) {
        return s.get(JAVA_LONG, MSG_PREFIX_SIZE);
    }

    /** {@code fi_ep_attr.max_order_raw_size}. */
    public static long maxOrderRawSize(MemorySegment s) {
        return s.get(JAVA_LONG, MAX_ORDER_RAW_SIZE);
    }

    /** {@code fi_ep_attr.max_order_war_size}. */
    public static long maxOrderWarSize(MemorySegment s) {
        return s.get(JAVA_LONG, MAX_ORDER_WAR_SIZE);
    }

    /** {@code fi_ep_attr.max_order_waw_size}. */
    public static long maxOrderWawSize(MemorySegment s) {
        return s.get(JAVA_LONG, MAX_ORDER_WAW_SIZE);
    }

    /** {@code fi_ep_attr.mem_tag_format}. */
    public static long memTagFormat(MemorySegment s) {
        return s.get(JAVA_LONG, MEM_TAG_FORMAT);
    }

    /** Sets {@code fi_ep_attr.mem_tag_format}. */
    public static void setMemTagFormat(MemorySegment s, long value) {
        s.set(JAVA_LONG, MEM_TAG_FORMAT, value);
    }

    /** {@code fi_ep_attr.tx_ctx_cnt}. */
    public static long txCtxCnt(MemorySegment s) {
        return s.get(JAVA_LONG, TX_CTX_CNT);
    }

    /** Sets {@code fi_ep_attr.tx_ctx_cnt}. */
    public static void setTxCtxCnt(MemorySegment s, long value) {
        s.set(JAVA_LONG, TX_CTX_CNT, value);
    }

    /** {@code fi_ep_attr.rx_ctx_cnt}. */
    public static long rxCtxCnt(MemorySegment s) {
        return s.get(JAVA_LONG, RX_CTX_CNT);
    }

    /** Sets {@code fi_ep_attr.rx_ctx_cnt}. */
    public static void setRxCtxCnt(MemorySegment s, long value) {
        s.set(JAVA_LONG, RX_CTX_CNT, value);
    }

    /** {@code fi_ep_attr.auth_key_size}. */
    public static long authKeySize(MemorySegment s) {
        return s.get(JAVA_LONG, AUTH_KEY_SIZE);
    }

    /** {@code fi_ep_attr.auth_key}: freed by {@code fi_freeinfo}. */
    public static MemorySegment authKey(MemorySegment s) {
        return s.get(ADDRESS, AUTH_KEY);
    }
}
