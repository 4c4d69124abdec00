package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/** {@code struct ibv_device_attr} (verbs.h): filled by {@link Ibverbs#queryDevice}; the caller owns it. */
public final class IbvDeviceAttr {

    /** {@code struct ibv_device_attr}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(64, JAVA_BYTE).withName("fw_ver"),
            JAVA_LONG.withName("node_guid"),
            JAVA_LONG.withName("sys_image_guid"),
            JAVA_LONG.withName("max_mr_size"),
            JAVA_LONG.withName("page_size_cap"),
            JAVA_INT.withName("vendor_id"),
            JAVA_INT.withName("vendor_part_id"),
            JAVA_INT.withName("hw_ver"),
            JAVA_INT.withName("max_qp"),
            JAVA_INT.withName("max_qp_wr"),
            JAVA_INT.withName("device_cap_flags"),
            JAVA_INT.withName("max_sge"),
            JAVA_INT.withName("max_sge_rd"),
            JAVA_INT.withName("max_cq"),
            JAVA_INT.withName("max_cqe"),
            JAVA_INT.withName("max_mr"),
            JAVA_INT.withName("max_pd"),
            JAVA_INT.withName("max_qp_rd_atom"),
            JAVA_INT.withName("max_ee_rd_atom"),
            JAVA_INT.withName("max_res_rd_atom"),
            JAVA_INT.withName("max_qp_init_rd_atom"),
            JAVA_INT.withName("max_ee_init_rd_atom"),
            JAVA_INT.withName("atomic_cap"),
            JAVA_INT.withName("max_ee"),
            JAVA_INT.withName("max_rdd"),
            JAVA_INT.withName("max_mw"),
            JAVA_INT.withName("max_raw_ipv6_qp"),
            JAVA_INT.withName("max_raw_ethy_qp"),
            JAVA_INT.withName("max_mcast_grp"),
            JAVA_INT.withName("max_mcast_qp_attach"),
            JAVA_INT.withName("max_total_mcast_qp_attach"),
            JAVA_INT.withName("max_ah"),
            JAVA_INT.withName("max_fmr"),
            JAVA_INT.withName("max_map_per_fmr"),
            JAVA_INT.withName("max_srq"),
            JAVA_INT.withName("max_srq_wr"),
            JAVA_INT.withName("max_srq_sge"),
            JAVA_SHORT.withName("max_pkeys"),
            JAVA_BYTE.withName("local_ca_ack_delay"),
            JAVA_BYTE.withName("phys_port_cnt"),
            MemoryLayout.paddingLayout(4))
            .withName("ibv_device_attr");

    private static final long FW_VER = Downcalls.offset(LAYOUT, "fw_ver");
    private static final long MAX_MR_SIZE = Downcalls.offset(LAYOUT, "max_mr_size");
    private static final long MAX_QP_WR = Downcalls.offset(LAYOUT, "max_qp_wr");
    private static final long MAX_SGE = Downcalls.offset(LAYOUT, "max_sge");
    private static final long MAX_CQE = Downcalls.offset(LAYOUT, "max_cqe");
    private static final long MAX_QP_RD_ATOM = Downcalls.offset(LAYOUT, "max_qp_rd_atom");
    private static final long MAX_QP_INIT_RD_ATOM = Downcalls.offset(LAYOUT, "max_qp_init_rd_atom");
    private static final long ATOMIC_CAP = Downcalls.offset(LAYOUT, "atomic_cap");
    private static final long PHYS_PORT_CNT = Downcalls.offset(LAYOUT, "phys_port_cnt");

    private IbvDeviceAttr() {
    }

    /** A zeroed instance owned by {@code arena}. */
    public static MemorySegment allocate(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /** {@code fw_ver}: the firmware version text. */
    public static String fwVer(MemorySegment s) {
        return s.getString(FW_VER);
    }

    /** {@code max_mr_size}: the largest registration. */
    public static long maxMrSize(MemorySegment s) {
        return s.get(JAVA_LONG, MAX_MR_SIZE);
    }

    /** {@code max_qp_wr}: the most outstanding work requests one queue (send or receive) of a QP may hold. */
    public static int maxQpWr(MemorySegment s) {
        return s.get(JAVA_INT, MAX_QP_WR);
    }

    /** {@code max_sge}: scatter/gather entries per work request. */
    public static int maxSge(MemorySegment s) {
        return s.get(JAVA_INT, MAX_SGE);
    }

    /** {@code max_cqe}: the most entries one completion queue may hold. */
    public static int maxCqe(MemorySegment s) {
        return s.get(JAVA_INT, MAX_CQE);
    }

    /** {@code max_qp_rd_atom}: RDMA reads and atomics a QP can serve at once as the target (responder). */
    public static int maxQpRdAtom(MemorySegment s) {
        return s.get(JAVA_INT, MAX_QP_RD_ATOM);
    }

    /** {@code max_qp_init_rd_atom}: RDMA reads and atomics a QP can have outstanding as the initiator. */
    public static int maxQpInitRdAtom(MemorySegment s) {
        return s.get(JAVA_INT, MAX_QP_INIT_RD_ATOM);
    }

    /** {@code atomic_cap}: {@code IBV_ATOMIC_NONE}, {@code _HCA} or {@code _GLOB}. */
    public static int atomicCap(MemorySegment s) {
        return s.get(JAVA_INT, ATOMIC_CAP);
    }

    /** {@code phys_port_cnt}: ports are numbered 1..this. */
    public static int physPortCnt(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(JAVA_BYTE, PHYS_PORT_CNT));
    }
}
