package dev.rivulet.rio.shm.sys;

import dev.rivulet.rio.uring.sys.ErrnoException;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * {@code futex(FUTEX_WAKE)} on a 32-bit word, and the availability of {@code futex_waitv} (Linux 5.16), which
 * {@link FutexWaitVector} sleeps on. A word in a {@code MAP_SHARED} file mapping is a <em>shared</em> futex: its key
 * is the file and offset, so a process that maps the same file elsewhere wakes the same waiters. Words only this
 * process sees use the cheaper private futexes.
 */
public final class Futex {

    static final int FUTEX_WAKE = 1;
    static final int FUTEX_PRIVATE_FLAG = 128;
    static final int CLOCK_MONOTONIC = 1;

    private static final MethodHandle CLOCK_GETTIME = Syscalls.capturing("clock_gettime",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));

    private Futex() {
    }

    /** Wakes up to {@code count} waiters on {@code word}; returns how many it woke. */
    public static int wake(MemorySegment word, int count, boolean shared) {
        long op = FUTEX_WAKE | (shared ? 0 : FUTEX_PRIVATE_FLAG);
        long r = Syscalls.syscall(Syscalls.NR_FUTEX, word.address(), op, count, 0, 0);
        if (r < 0) {
            throw new ErrnoException("futex(FUTEX_WAKE)", (int) -r);
        }
        return (int) r;
    }

    /**
     * Null when this kernel and architecture have {@code futex_waitv}, else why not. Probed with an empty vector,
     * which a kernel that has the call refuses with {@code EINVAL} and one that lacks it with {@code ENOSYS}.
     */
    public static String unavailableReason() {
        if (!Syscalls.architectureKnown()) {
            return "no futex system call numbers for architecture " + System.getProperty("os.arch");
        }
        long r = Syscalls.syscall(Syscalls.NR_FUTEX_WAITV, 0, 0, 0, 0, 0);
        if (r == -Syscalls.ENOSYS) {
            return "the kernel has no futex_waitv (Linux 5.16 or later is needed)";
        }
        return null;
    }

    /** {@code clock_gettime(CLOCK_MONOTONIC)} into {@code timespec} (16 bytes: seconds, nanoseconds). */
    static void monotonicNow(MemorySegment timespec) {
        MemorySegment state = Syscalls.threadState();
        int r;
        try {
            r = (int) CLOCK_GETTIME.invokeExact(state, CLOCK_MONOTONIC, timespec);
        } catch (Throwable t) {
            throw Syscalls.rethrow(t);
        }
        if (r != 0) {
            throw new ErrnoException("clock_gettime", Syscalls.errno(state));
        }
    }
}
