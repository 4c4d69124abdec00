package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct rdma_cm_event} (rdma_cma.h): one event from {@link Rdmacm#getCmEvent}, owned by librdmacm until
 * {@link Rdmacm#ackCmEvent}. Everything read from it (the private data above all) must be copied before the ack.
 */
public final class RdmaCmEvent {

    /** {@code struct rdma_cm_event}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("id"),
            ADDRESS.withName("listen_id"),
            JAVA_INT.withName("event"),
            JAVA_INT.withName("status"),
            MemoryLayout.unionLayout(
                    RdmaConnParam.LAYOUT.withName("conn"),
                    RdmaUdParam.LAYOUT.withName("ud")).withName("param"))
            .withName("rdma_cm_event");

    /** {@code sizeof(struct rdma_cm_event)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long ID = Downcalls.offset(LAYOUT, "id");
    private static final long LISTEN_ID = Downcalls.offset(LAYOUT, "listen_id");
    private static final long EVENT = Downcalls.offset(LAYOUT, "event");
    private static final long STATUS = Downcalls.offset(LAYOUT, "status");
    private static final long CONN = Downcalls.offset(LAYOUT, "param", "conn");

    private RdmaCmEvent() {
    }

    /** Sizes a {@code struct rdma_cm_event*}; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return VerbsDispatch.sized(pointer, SIZE);
    }

    /** {@code id}: the id the event is about; for a connection request, a new id for the new connection. */
    public static MemorySegment id(MemorySegment s) {
        return s.get(ADDRESS, ID);
    }

    /** {@code listen_id}: for a connection request, the listening id it arrived on. */
    public static MemorySegment listenId(MemorySegment s) {
        return s.get(ADDRESS, LISTEN_ID);
    }

    /** {@code event}: {@code RDMA_CM_EVENT_*}. */
    public static int event(MemorySegment s) {
        return s.get(JAVA_INT, EVENT);
    }

    /** {@code status}: 0, or a negative errno (for REJECTED, the peer's or the CM's reject reason). */
    public static int status(MemorySegment s) {
        return s.get(JAVA_INT, STATUS);
    }

    /** {@code param.conn.responder_resources}: of a connection request, the reads and atomics the peer serves. */
    public static int responderResources(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(JAVA_BYTE, CONN + RdmaConnParam.RESPONDER_RESOURCES));
    }

    /** {@code param.conn.initiator_depth}: of a connection request, the reads and atomics the peer keeps going. */
    public static int initiatorDepth(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(JAVA_BYTE, CONN + RdmaConnParam.INITIATOR_DEPTH));
    }

    /**
     * A copy of {@code param.conn.private_data} (connection request, established, rejected): empty when there is
     * none. Copied because it lives only until the event is acknowledged.
     */
    public static byte[] privateData(MemorySegment s) {
        MemorySegment p = s.get(ADDRESS, CONN + RdmaConnParam.PRIVATE_DATA);
        int len = Byte.toUnsignedInt(s.get(JAVA_BYTE, CONN + RdmaConnParam.PRIVATE_DATA_LEN));
        if (p.address() == 0 || len == 0) {
            return new byte[0];
        }
        return VerbsDispatch.sized(p, len).toArray(JAVA_BYTE);
    }
}
