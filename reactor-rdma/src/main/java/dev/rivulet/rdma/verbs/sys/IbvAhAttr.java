package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_ah_attr} (verbs.h): the address vector of a peer port, as {@code ibv_qp_attr.ah_attr} for an RC
 * queue pair's move to RTR. On InfiniBand within a subnet the LID suffices; RoCE needs {@code is_global} and the
 * {@link IbvGlobalRoute} with the peer's GID.
 */
public final class IbvAhAttr {

    /** {@code struct ibv_ah_attr}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            IbvGlobalRoute.LAYOUT.withName("grh"),
            JAVA_SHORT.withName("dlid"),
            JAVA_BYTE.withName("sl"),
            JAVA_BYTE.withName("src_path_bits"),
            JAVA_BYTE.withName("static_rate"),
            JAVA_BYTE.withName("is_global"),
            JAVA_BYTE.withName("port_num"),
            MemoryLayout.paddingLayout(1))
            .withName("ibv_ah_attr");

    private static final long GRH = Downcalls.offset(LAYOUT, "grh");
    private static final long DLID = Downcalls.offset(LAYOUT, "dlid");
    private static final long SL = Downcalls.offset(LAYOUT, "sl");
    private static final long SRC_PATH_BITS = Downcalls.offset(LAYOUT, "src_path_bits");
    private static final long STATIC_RATE = Downcalls.offset(LAYOUT, "static_rate");
    private static final long IS_GLOBAL = Downcalls.offset(LAYOUT, "is_global");
    private static final long PORT_NUM = Downcalls.offset(LAYOUT, "port_num");

    private IbvAhAttr() {
    }

    /**
     * Fills the address vector at {@code offset} of {@code s}.
     *
     * @param dgid the peer's GID, or {@code null} for a local (LID-routed) InfiniBand path without a GRH
     */
    public static void set(MemorySegment s, long offset, int dlid, int sl, int portNum, byte[] dgid, int sgidIndex,
                           int hopLimit) {
        s.set(JAVA_SHORT, offset + DLID, (short) dlid);
        s.set(JAVA_BYTE, offset + SL, (byte) sl);
        s.set(JAVA_BYTE, offset + SRC_PATH_BITS, (byte) 0);
        s.set(JAVA_BYTE, offset + STATIC_RATE, (byte) 0);
        s.set(JAVA_BYTE, offset + PORT_NUM, (byte) portNum);
        s.set(JAVA_BYTE, offset + IS_GLOBAL, (byte) (dgid == null ? 0 : 1));
        if (dgid != null) {
            IbvGlobalRoute.set(s, offset + GRH, dgid, sgidIndex, hopLimit, 0);
        }
    }
}
