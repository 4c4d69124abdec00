package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/** {@code struct rdma_event_channel} (rdma_cma.h): the file descriptor rdma_cm delivers connection events on. */
public final class RdmaEventChannel {

    /** {@code struct rdma_event_channel}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("fd"))
            .withName("rdma_event_channel");

    private static final long FD = Downcalls.offset(LAYOUT, "fd");

    private RdmaEventChannel() {
    }

    /** Sizes a {@code struct rdma_event_channel*}; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return VerbsDispatch.sized(pointer, LAYOUT.byteSize());
    }

    /** {@code fd}: readable when an event waits; made non-blocking, {@code rdma_get_cm_event} then never waits. */
    public static int fd(MemorySegment s) {
        return s.get(JAVA_INT, FD);
    }
}
