package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct rdma_conn_param} (rdma_cma.h): what {@link Rdmacm#connect} and {@link Rdmacm#accept} tell the peer.
 * {@code private_data} is carried in the connection request / reply (at most 56 bytes on a request and 196 on a reply
 * in the {@code RDMA_PS_TCP} port space, rdma_connect(3)); the same struct arrives with the peer's data in
 * {@link RdmaCmEvent}.
 */
public final class RdmaConnParam {

    /** {@code struct rdma_conn_param}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("private_data"),
            JAVA_BYTE.withName("private_data_len"),
            JAVA_BYTE.withName("responder_resources"),
            JAVA_BYTE.withName("initiator_depth"),
            JAVA_BYTE.withName("flow_control"),
            JAVA_BYTE.withName("retry_count"),
            JAVA_BYTE.withName("rnr_retry_count"),
            JAVA_BYTE.withName("srq"),
            MemoryLayout.paddingLayout(1),
            JAVA_INT.withName("qp_num"),
            MemoryLayout.paddingLayout(4))
            .withName("rdma_conn_param");

    /** Most private data a connection request carries in {@code RDMA_PS_TCP}. */
    public static final int MAX_CONNECT_PRIVATE_DATA = 56;
    /** Most private data a connection reply carries in {@code RDMA_PS_TCP}. */
    public static final int MAX_ACCEPT_PRIVATE_DATA = 196;

    static final long PRIVATE_DATA = Downcalls.offset(LAYOUT, "private_data");
    static final long PRIVATE_DATA_LEN = Downcalls.offset(LAYOUT, "private_data_len");
    static final long RESPONDER_RESOURCES = Downcalls.offset(LAYOUT, "responder_resources");
    static final long INITIATOR_DEPTH = Downcalls.offset(LAYOUT, "initiator_depth");
    private static final long RETRY_COUNT = Downcalls.offset(LAYOUT, "retry_count");
    private static final long RNR_RETRY_COUNT = Downcalls.offset(LAYOUT, "rnr_retry_count");

    private RdmaConnParam() {
    }

    /** A zeroed instance owned by {@code arena}. */
    public static MemorySegment allocate(Arena arena) {
        return arena.allocate(LAYOUT);
    }

    /**
     * Fills the parameters of a connect or accept.
     *
     * @param privateData        bytes the peer receives with the request/reply (their length fits a byte)
     * @param responderResources RDMA reads and atomics the peer may have outstanding at this side
     * @param initiatorDepth     RDMA reads and atomics this side keeps outstanding at the peer
     * @param retryCount         transport retries before the connection fails (at most 7; ignored by accept)
     * @param rnrRetryCount      resends to a peer without a posted receive; 7 means without limit
     */
    public static void set(MemorySegment s, MemorySegment privateData, int responderResources, int initiatorDepth,
                           int retryCount, int rnrRetryCount) {
        if (privateData.byteSize() > 255) {
            throw new IllegalArgumentException("private data of " + privateData.byteSize() + " bytes");
        }
        s.fill((byte) 0);
        s.set(ADDRESS, PRIVATE_DATA, privateData);
        s.set(JAVA_BYTE, PRIVATE_DATA_LEN, (byte) privateData.byteSize());
        s.set(JAVA_BYTE, RESPONDER_RESOURCES, (byte) responderResources);
        s.set(JAVA_BYTE, INITIATOR_DEPTH, (byte) initiatorDepth);
        s.set(JAVA_BYTE, RETRY_COUNT, (byte) retryCount);
        s.set(JAVA_BYTE, RNR_RETRY_COUNT, (byte) rnrRetryCount);
    }
}
