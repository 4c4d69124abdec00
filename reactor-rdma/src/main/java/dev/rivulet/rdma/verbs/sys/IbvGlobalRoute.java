package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;

/**
 * {@code struct ibv_global_route} (verbs.h): the global routing header of an address vector, required on RoCE (where
 * every packet carries one) and between InfiniBand subnets. Its {@code dgid} is a {@code union ibv_gid}: 16 raw bytes,
 * in network order, as {@link Ibverbs#queryGid} returns them.
 */
public final class IbvGlobalRoute {

    /** {@code union ibv_gid}. */
    public static final UnionLayout GID = MemoryLayout.unionLayout(
            MemoryLayout.sequenceLayout(16, JAVA_BYTE).withName("raw"),
            MemoryLayout.structLayout(
                    JAVA_LONG.withName("subnet_prefix"),
                    JAVA_LONG.withName("interface_id")).withName("global"));

    /** {@code struct ibv_global_route}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            GID.withName("dgid"),
            JAVA_INT.withName("flow_label"),
            JAVA_BYTE.withName("sgid_index"),
            JAVA_BYTE.withName("hop_limit"),
            JAVA_BYTE.withName("traffic_class"),
            MemoryLayout.paddingLayout(1))
            .withName("ibv_global_route");

    static final long DGID = Downcalls.offset(LAYOUT, "dgid");
    static final long FLOW_LABEL = Downcalls.offset(LAYOUT, "flow_label");
    static final long SGID_INDEX = Downcalls.offset(LAYOUT, "sgid_index");
    static final long HOP_LIMIT = Downcalls.offset(LAYOUT, "hop_limit");
    static final long TRAFFIC_CLASS = Downcalls.offset(LAYOUT, "traffic_class");

    private IbvGlobalRoute() {
    }

    /** Fills the header at {@code offset} of {@code s}: the peer's GID, our GID index, a hop limit. */
    public static void set(MemorySegment s, long offset, byte[] dgid, int sgidIndex, int hopLimit, int trafficClass) {
        if (dgid.length != 16) {
            throw new IllegalArgumentException("a GID has 16 bytes, got " + dgid.length);
        }
        MemorySegment.copy(dgid, 0, s, JAVA_BYTE, offset + DGID, 16);
        s.set(JAVA_INT, offset + FLOW_LABEL, 0);
        s.set(JAVA_BYTE, offset + SGID_INDEX, (byte) sgidIndex);
        s.set(JAVA_BYTE, offset + HOP_LIMIT, (byte) hopLimit);
        s.set(JAVA_BYTE, offset + TRAFFIC_CLASS, (byte) trafficClass);
    }
}
