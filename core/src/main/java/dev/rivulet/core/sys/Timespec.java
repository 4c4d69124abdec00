package dev.rivulet.core.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code struct timespec} (16 bytes, {@code <time.h>}): seconds and nanoseconds, for {@code ppoll},
 * {@code clock_gettime} and {@code futex_waitv}. On the 64-bit platforms Rivulet binds (x86-64, aarch64) it is also
 * the kernel's {@code struct __kernel_timespec}, which io_uring takes for wait timeouts and {@code IORING_OP_TIMEOUT};
 * the ABI tests check it against both.
 */
public final class Timespec {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("tv_sec"),
            JAVA_LONG.withName("tv_nsec")
    ).withName("timespec");

    private static final VarHandle TV_SEC = LAYOUT.varHandle(groupElement("tv_sec"));
    private static final VarHandle TV_NSEC = LAYOUT.varHandle(groupElement("tv_nsec"));

    private Timespec() {
    }

    /** Stores a non-negative relative duration of {@code nanos}. */
    public static void setNanos(MemorySegment ts, long nanos) {
        if (nanos < 0) {
            throw new IllegalArgumentException("negative timeout: " + nanos);
        }
        TV_SEC.set(ts, 0L, nanos / 1_000_000_000L);
        TV_NSEC.set(ts, 0L, nanos % 1_000_000_000L);
    }

    /** Stores {@code seconds} and {@code nanos} as they are. */
    public static void set(MemorySegment ts, long seconds, long nanos) {
        TV_SEC.set(ts, 0L, seconds);
        TV_NSEC.set(ts, 0L, nanos);
    }

    /** Moves {@code ts} (an absolute time) {@code nanos} later, keeping its nanoseconds below one second. */
    public static void addNanos(MemorySegment ts, long nanos) {
        long sec = seconds(ts) + nanos / 1_000_000_000L;
        long nsec = nanos(ts) + nanos % 1_000_000_000L;
        if (nsec >= 1_000_000_000L) {
            sec++;
            nsec -= 1_000_000_000L;
        }
        set(ts, sec, nsec);
    }

    public static long seconds(MemorySegment ts) {
        return (long) TV_SEC.get(ts, 0L);
    }

    public static long nanos(MemorySegment ts) {
        return (long) TV_NSEC.get(ts, 0L);
    }
}
