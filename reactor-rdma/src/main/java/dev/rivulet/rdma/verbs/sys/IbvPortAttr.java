package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_port_attr} (verbs.h), filled by {@link Ibverbs#queryPort}. The exported {@code ibv_query_port}
 * symbol only fills the first 48 bytes (the old {@code _compat_ibv_port_attr}); {@code port_cap_flags2} is set only
 * through the extended path, which {@link Ibverbs#queryPort} takes when the provider offers it.
 */
public final class IbvPortAttr {

    /** {@code struct ibv_port_attr}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("state"),
            JAVA_INT.withName("max_mtu"),
            JAVA_INT.withName("active_mtu"),
            JAVA_INT.withName("gid_tbl_len"),
            JAVA_INT.withName("port_cap_flags"),
            JAVA_INT.withName("max_msg_sz"),
            JAVA_INT.withName("bad_pkey_cntr"),
            JAVA_INT.withName("qkey_viol_cntr"),
            JAVA_SHORT.withName("pkey_tbl_len"),
            JAVA_SHORT.withName("lid"),
            JAVA_SHORT.withName("sm_lid"),
            JAVA_BYTE.withName("lmc"),
            JAVA_BYTE.withName("max_vl_num"),
            JAVA_BYTE.withName("sm_sl"),
            JAVA_BYTE.withName("subnet_timeout"),
            JAVA_BYTE.withName("init_type_reply"),
            JAVA_BYTE.withName("active_width"),
            JAVA_BYTE.withName("active_speed"),
            JAVA_BYTE.withName("phys_state"),
            JAVA_BYTE.withName("link_layer"),
            JAVA_BYTE.withName("flags"),
            JAVA_SHORT.withName("port_cap_flags2"),
            MemoryLayout.paddingLayout(2))
            .withName("ibv_port_attr");

    /** {@code sizeof(struct ibv_port_attr)}: what the extended query is told the buffer holds. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long STATE = Downcalls.offset(LAYOUT, "state");
    private static final long ACTIVE_MTU = Downcalls.offset(LAYOUT, "active_mtu");
    private static final long GID_TBL_LEN = Downcalls.offset(LAYOUT, "gid_tbl_len");
    private static final long MAX_MSG_SZ = Downcalls.offset(LAYOUT, "max_msg_sz");
    private static final long LID = Downcalls.offset(LAYOUT, "lid");
    private static final long LINK_LAYER = Downcalls.offset(LAYOUT, "link_layer");

    private IbvPortAttr() {
    }

    /** A zeroed instance owned by {@code arena}. */
    public static MemorySegment allocate(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /** {@code state}: {@code IBV_PORT_ACTIVE} when the port can carry traffic. */
    public static int state(MemorySegment s) {
        return s.get(JAVA_INT, STATE);
    }

    /** {@code active_mtu}: {@code IBV_MTU_256} .. {@code IBV_MTU_4096}. */
    public static int activeMtu(MemorySegment s) {
        return s.get(JAVA_INT, ACTIVE_MTU);
    }

    /** {@code gid_tbl_len}: valid GID indexes are 0..this-1. */
    public static int gidTblLen(MemorySegment s) {
        return s.get(JAVA_INT, GID_TBL_LEN);
    }

    /** {@code max_msg_sz}: the largest message (and RDMA transfer) the port carries. */
    public static long maxMsgSz(MemorySegment s) {
        return Integer.toUnsignedLong(s.get(JAVA_INT, MAX_MSG_SZ));
    }

    /** {@code lid}: the port's local identifier on InfiniBand (0 on Ethernet). */
    public static int lid(MemorySegment s) {
        return Short.toUnsignedInt(s.get(JAVA_SHORT, LID));
    }

    /** {@code link_layer}: {@code IBV_LINK_LAYER_INFINIBAND} or {@code _ETHERNET} (RoCE). */
    public static int linkLayer(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(JAVA_BYTE, LINK_LAYER));
    }
}
