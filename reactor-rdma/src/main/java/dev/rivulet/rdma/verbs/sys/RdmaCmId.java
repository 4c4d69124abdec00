package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct rdma_cm_id} (rdma_cma.h): rdma_cm's counterpart of a socket. Once its address is resolved (or a
 * connection request arrived on it) {@code verbs} names the device it goes through, {@code port_num} the port; a queue
 * pair made with {@link Rdmacm#createQp} sits in {@code qp}. The route (addresses, path records) is opaque here.
 */
public final class RdmaCmId {

    /** {@code struct rdma_cm_id}; {@code route} is kept as bytes (the binding never reads it). */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("verbs"),
            ADDRESS.withName("channel"),
            ADDRESS.withName("context"),
            ADDRESS.withName("qp"),
            MemoryLayout.sequenceLayout(312, JAVA_BYTE).withName("route"),
            JAVA_INT.withName("ps"),
            JAVA_BYTE.withName("port_num"),
            MemoryLayout.paddingLayout(3),
            ADDRESS.withName("event"),
            ADDRESS.withName("send_cq_channel"),
            ADDRESS.withName("send_cq"),
            ADDRESS.withName("recv_cq_channel"),
            ADDRESS.withName("recv_cq"),
            ADDRESS.withName("srq"),
            ADDRESS.withName("pd"),
            JAVA_INT.withName("qp_type"),
            MemoryLayout.paddingLayout(4))
            .withName("rdma_cm_id");

    /** {@code sizeof(struct rdma_cm_id)}. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long VERBS = Downcalls.offset(LAYOUT, "verbs");
    private static final long QP = Downcalls.offset(LAYOUT, "qp");
    private static final long PORT_NUM = Downcalls.offset(LAYOUT, "port_num");

    private RdmaCmId() {
    }

    /** Sizes a {@code struct rdma_cm_id*}; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return VerbsDispatch.sized(pointer, SIZE);
    }

    /** {@code verbs}: the device context the id is bound to (NULL before its address is resolved or bound). */
    public static MemorySegment verbs(MemorySegment s) {
        return s.get(ADDRESS, VERBS);
    }

    /** {@code qp}: the queue pair {@link Rdmacm#createQp} made on this id, sized as {@link IbvQp#LAYOUT}. */
    public static MemorySegment qp(MemorySegment s) {
        return IbvQp.of(s.get(ADDRESS, QP));
    }

    /** {@code port_num}: the device port (1-based) the id is bound to. */
    public static int portNum(MemorySegment s) {
        return Byte.toUnsignedInt(s.get(JAVA_BYTE, PORT_NUM));
    }
}
