package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_comp_channel} (verbs.h): a file descriptor that becomes readable when an armed completion queue
 * ({@link IbvCq#reqNotify}) gets a completion; {@link Ibverbs#getCqEvent} reads which one.
 */
public final class IbvCompChannel {

    /** {@code struct ibv_comp_channel}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("context"),
            JAVA_INT.withName("fd"),
            JAVA_INT.withName("refcnt"))
            .withName("ibv_comp_channel");

    private static final long FD = Downcalls.offset(LAYOUT, "fd");

    private IbvCompChannel() {
    }

    /** Sizes a {@code struct ibv_comp_channel*}; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return VerbsDispatch.sized(pointer, LAYOUT.byteSize());
    }

    /** {@code fd}: poll it for input; make it non-blocking so {@code ibv_get_cq_event} never waits. */
    public static int fd(MemorySegment s) {
        return s.get(JAVA_INT, FD);
    }
}
