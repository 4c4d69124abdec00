package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct rdma_ud_param} (rdma_cma.h): the datagram variant of an event's parameters. The transport uses
 * reliable connections only; the layout is here because it shapes {@link RdmaCmEvent}'s union.
 */
public final class RdmaUdParam {

    /** {@code struct rdma_ud_param}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("private_data"),
            JAVA_BYTE.withName("private_data_len"),
            MemoryLayout.paddingLayout(7),
            IbvAhAttr.LAYOUT.withName("ah_attr"),
            JAVA_INT.withName("qp_num"),
            JAVA_INT.withName("qkey"))
            .withName("rdma_ud_param");

    private RdmaUdParam() {
    }
}
