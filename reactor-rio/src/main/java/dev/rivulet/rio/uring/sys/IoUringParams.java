package dev.rivulet.rio.uring.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code struct io_uring_params} (120 bytes, no holes): the in/out argument of {@code io_uring_setup}. The
 * application sets {@code flags} (and {@code cq_entries} with {@code IORING_SETUP_CQSIZE}, {@code sq_thread_*}
 * with SQPOLL); the kernel writes back the granted sizes, the feature bits and the ring offsets.
 */
public final class IoUringParams {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("sq_entries"),
            JAVA_INT.withName("cq_entries"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("sq_thread_cpu"),
            JAVA_INT.withName("sq_thread_idle"),
            JAVA_INT.withName("features"),
            JAVA_INT.withName("wq_fd"),
            MemoryLayout.sequenceLayout(3, JAVA_INT).withName("resv"),
            IoSqringOffsets.LAYOUT.withName("sq_off"),
            IoCqringOffsets.LAYOUT.withName("cq_off")
    ).withName("io_uring_params");

    /** Base offset of the embedded {@link IoSqringOffsets}. */
    public static final long SQ_OFF_OFFSET = LAYOUT.byteOffset(groupElement("sq_off"));
    /** Base offset of the embedded {@link IoCqringOffsets}. */
    public static final long CQ_OFF_OFFSET = LAYOUT.byteOffset(groupElement("cq_off"));

    private static final VarHandle SQ_ENTRIES = LAYOUT.varHandle(groupElement("sq_entries"));
    private static final VarHandle CQ_ENTRIES = LAYOUT.varHandle(groupElement("cq_entries"));
    private static final VarHandle FLAGS = LAYOUT.varHandle(groupElement("flags"));
    private static final VarHandle SQ_THREAD_CPU = LAYOUT.varHandle(groupElement("sq_thread_cpu"));
    private static final VarHandle SQ_THREAD_IDLE = LAYOUT.varHandle(groupElement("sq_thread_idle"));
    private static final VarHandle FEATURES = LAYOUT.varHandle(groupElement("features"));
    private static final VarHandle WQ_FD = LAYOUT.varHandle(groupElement("wq_fd"));

    private IoUringParams() {
    }

    public static int sqEntries(MemorySegment p) {
        return (int) SQ_ENTRIES.get(p, 0L);
    }

    public static int cqEntries(MemorySegment p) {
        return (int) CQ_ENTRIES.get(p, 0L);
    }

    /** Requested CQ size; only honoured together with {@link IoUringConstants#IORING_SETUP_CQSIZE}. */
    public static void cqEntries(MemorySegment p, int value) {
        CQ_ENTRIES.set(p, 0L, value);
    }

    public static int flags(MemorySegment p) {
        return (int) FLAGS.get(p, 0L);
    }

    public static void flags(MemorySegment p, int value) {
        FLAGS.set(p, 0L, value);
    }

    public static int sqThreadCpu(MemorySegment p) {
        return (int) SQ_THREAD_CPU.get(p, 0L);
    }

    public static void sqThreadCpu(MemorySegment p, int value) {
        SQ_THREAD_CPU.set(p, 0L, value);
    }

    public static int sqThreadIdle(MemorySegment p) {
        return (int) SQ_THREAD_IDLE.get(p, 0L);
    }

    /** SQPOLL idle time in milliseconds before the kernel thread sleeps. */
    public static void sqThreadIdle(MemorySegment p, int millis) {
        SQ_THREAD_IDLE.set(p, 0L, millis);
    }

    /** {@code IORING_FEAT_*} bits the kernel reports. */
    public static int features(MemorySegment p) {
        return (int) FEATURES.get(p, 0L);
    }

    public static int wqFd(MemorySegment p) {
        return (int) WQ_FD.get(p, 0L);
    }

    public static void wqFd(MemorySegment p, int fd) {
        WQ_FD.set(p, 0L, fd);
    }
}
