package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_pd} (verbs.h): a protection domain. Registrations and queue pairs of one PD can reach each other:
 * an rkey registered in a PD is honoured on every QP of that PD.
 */
public final class IbvPd {

    /** {@code struct ibv_pd}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            JAVA_INT.withName("handle"),
            MemoryLayout.paddingLayout(4))
            .withName("ibv_pd");

    private IbvPd() {
    }

    /** Sizes a {@code struct ibv_pd*}; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return VerbsDispatch.sized(pointer, LAYOUT.byteSize());
    }
}
