package dev.rivulet.rdma.verbs.sys;

import static dev.rivulet.rdma.verbs.sys.VerbsConstants.*;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_qp_attr} (verbs.h) and the reliable-connected queue pair's state machine as
 * {@code ibv_modify_qp(3)} describes it: each {@code to*} method zeroes the struct, fills exactly the attributes its
 * transition requires and returns the matching attribute mask, so a transition is one call:
 * {@code Ibverbs.modifyQp(qp, attr, IbvQpAttr.toInit(attr, port, access))}.
 *
 * <p>RESET → INIT → RTR (ready to receive: knows its peer) → RTS (ready to send); ERR from any state flushes every
 * outstanding work request with {@code IBV_WC_WR_FLUSH_ERR}.
 */
public final class IbvQpAttr {

    /** {@code struct ibv_qp_attr}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("qp_state"),
            JAVA_INT.withName("cur_qp_state"),
            JAVA_INT.withName("path_mtu"),
            JAVA_INT.withName("path_mig_state"),
            JAVA_INT.withName("qkey"),
            JAVA_INT.withName("rq_psn"),
            JAVA_INT.withName("sq_psn"),
            JAVA_INT.withName("dest_qp_num"),
            JAVA_INT.withName("qp_access_flags"),
            IbvQpCap.LAYOUT.withName("cap"),
            IbvAhAttr.LAYOUT.withName("ah_attr"),
            IbvAhAttr.LAYOUT.withName("alt_ah_attr"),
            JAVA_SHORT.withName("pkey_index"),
            JAVA_SHORT.withName("alt_pkey_index"),
            JAVA_BYTE.withName("en_sqd_async_notify"),
            JAVA_BYTE.withName("sq_draining"),
            JAVA_BYTE.withName("max_rd_atomic"),
            JAVA_BYTE.withName("max_dest_rd_atomic"),
            JAVA_BYTE.withName("min_rnr_timer"),
            JAVA_BYTE.withName("port_num"),
            JAVA_BYTE.withName("timeout"),
            JAVA_BYTE.withName("retry_cnt"),
            JAVA_BYTE.withName("rnr_retry"),
            JAVA_BYTE.withName("alt_port_num"),
            JAVA_BYTE.withName("alt_timeout"),
            MemoryLayout.paddingLayout(1),
            JAVA_INT.withName("rate_limit"),
            MemoryLayout.paddingLayout(4))
            .withName("ibv_qp_attr");

    /** Mask of RESET → INIT. */
    public static final int INIT_MASK = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
    /** Mask of INIT → RTR for RC. */
    public static final int RTR_MASK = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN
            | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    /** Mask of RTR → RTS for RC. */
    public static final int RTS_MASK = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY
            | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;

    private static final long QP_STATE = Downcalls.offset(LAYOUT, "qp_state");
    private static final long PATH_MTU = Downcalls.offset(LAYOUT, "path_mtu");
    private static final long RQ_PSN = Downcalls.offset(LAYOUT, "rq_psn");
    private static final long SQ_PSN = Downcalls.offset(LAYOUT, "sq_psn");
    private static final long DEST_QP_NUM = Downcalls.offset(LAYOUT, "dest_qp_num");
    private static final long QP_ACCESS_FLAGS = Downcalls.offset(LAYOUT, "qp_access_flags");
    private static final long AH_ATTR = Downcalls.offset(LAYOUT, "ah_attr");
    private static final long PKEY_INDEX = Downcalls.offset(LAYOUT, "pkey_index");
    private static final long MAX_RD_ATOMIC = Downcalls.offset(LAYOUT, "max_rd_atomic");
    private static final long MAX_DEST_RD_ATOMIC = Downcalls.offset(LAYOUT, "max_dest_rd_atomic");
    private static final long MIN_RNR_TIMER = Downcalls.offset(LAYOUT, "min_rnr_timer");
    private static final long PORT_NUM = Downcalls.offset(LAYOUT, "port_num");
    private static final long TIMEOUT = Downcalls.offset(LAYOUT, "timeout");
    private static final long RETRY_CNT = Downcalls.offset(LAYOUT, "retry_cnt");
    private static final long RNR_RETRY = Downcalls.offset(LAYOUT, "rnr_retry");

    private IbvQpAttr() {
    }

    /** A zeroed instance owned by {@code arena}. */
    public static MemorySegment allocate(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /** RESET → INIT on {@code port} (1-based), partition key index 0, allowing {@code accessFlags} as responder. */
    public static int toInit(MemorySegment s, int port, int accessFlags) {
        s.fill((byte) 0);
        s.set(JAVA_INT, QP_STATE, IBV_QPS_INIT);
        s.set(JAVA_SHORT, PKEY_INDEX, (short) 0);
        s.set(JAVA_BYTE, PORT_NUM, (byte) port);
        s.set(JAVA_INT, QP_ACCESS_FLAGS, accessFlags);
        return INIT_MASK;
    }

    /**
     * INIT → RTR towards the peer's queue pair {@code destQpn}, expecting its first packet sequence number
     * {@code rqPsn} (24 bits).
     *
     * @param pathMtu         {@code IBV_MTU_*}, at most both ports' active MTU
     * @param maxDestRdAtomic reads and atomics the peer may have outstanding here (at most the device's
     *                        {@code max_qp_rd_atom})
     * @param minRnrTimer     the RNR NAK delay code (12 ≈ 0.64 ms) the peer waits before resending to an empty
     *                        receive queue
     * @param dgid            the peer's GID for a routed path (RoCE, other subnets), or {@code null}
     */
    public static int toRtr(MemorySegment s, int pathMtu, int destQpn, int rqPsn, int maxDestRdAtomic,
                            int minRnrTimer, int port, int dlid, byte[] dgid, int sgidIndex, int hopLimit) {
        s.fill((byte) 0);
        s.set(JAVA_INT, QP_STATE, IBV_QPS_RTR);
        s.set(JAVA_INT, PATH_MTU, pathMtu);
        s.set(JAVA_INT, DEST_QP_NUM, destQpn);
        s.set(JAVA_INT, RQ_PSN, rqPsn & 0xFFFFFF);
        s.set(JAVA_BYTE, MAX_DEST_RD_ATOMIC, (byte) maxDestRdAtomic);
        s.set(JAVA_BYTE, MIN_RNR_TIMER, (byte) minRnrTimer);
        IbvAhAttr.set(s, AH_ATTR, dlid, 0, port, dgid, sgidIndex, hopLimit);
        return RTR_MASK;
    }

    /**
     * RTR → RTS starting at {@code sqPsn} (24 bits).
     *
     * @param timeout     ack timeout exponent: 4.096 µs · 2^timeout per attempt
     * @param retryCnt    resends after a timeout before {@code IBV_WC_RETRY_EXC_ERR} (at most 7)
     * @param rnrRetry    resends after an RNR NAK; 7 means without limit
     * @param maxRdAtomic reads and atomics this side keeps outstanding (at most {@code max_qp_init_rd_atom})
     */
    public static int toRts(MemorySegment s, int sqPsn, int timeout, int retryCnt, int rnrRetry, int maxRdAtomic) {
        s.fill((byte) 0);
        s.set(JAVA_INT, QP_STATE, IBV_QPS_RTS);
        s.set(JAVA_INT, SQ_PSN, sqPsn & 0xFFFFFF);
        s.set(JAVA_BYTE, TIMEOUT, (byte) timeout);
        s.set(JAVA_BYTE, RETRY_CNT, (byte) retryCnt);
        s.set(JAVA_BYTE, RNR_RETRY, (byte) rnrRetry);
        s.set(JAVA_BYTE, MAX_RD_ATOMIC, (byte) maxRdAtomic);
        return RTS_MASK;
    }

    /** Any state → ERR: outstanding work requests complete with {@code IBV_WC_WR_FLUSH_ERR}. */
    public static int toErr(MemorySegment s) {
        s.fill((byte) 0);
        s.set(JAVA_INT, QP_STATE, IBV_QPS_ERR);
        return IBV_QP_STATE;
    }
}
