package dev.rivulet.rio.uring.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code struct __kernel_timespec} (16 bytes): the 64-bit timespec io_uring uses for wait timeouts
 * ({@link IoUringGeteventsArg}) and {@code IORING_OP_TIMEOUT}, independent of the libc's {@code time_t}.
 */
public final class KernelTimespec {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("tv_sec"),
            JAVA_LONG.withName("tv_nsec")
    ).withName("__kernel_timespec");

    private static final VarHandle TV_SEC = LAYOUT.varHandle(groupElement("tv_sec"));
    private static final VarHandle TV_NSEC = LAYOUT.varHandle(groupElement("tv_nsec"));

    private KernelTimespec() {
    }

    /** Stores a non-negative relative duration of {@code nanos}. */
    public static void setNanos(MemorySegment ts, long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("negative timeout: " + nanos);
        }
        TV_SEC.set(ts, 0L, nanos / 1_000_000_000L);
        TV_NSEC.set(ts, 0L, nanos % 1_000_000_000L);
    }

    public static long seconds(MemorySegment ts) {
        return (long) TV_SEC.get(ts, 0L);
    }

    public static long nanos(MemorySegment ts) {
        return (long) TV_NSEC.get(ts, 0L);
    }
}
