package dev.rivulet.rio.shm.sys;

import dev.rivulet.core.sys.Errno;
import dev.rivulet.core.sys.ErrnoException;
import dev.rivulet.core.sys.Libc;

import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * {@code futex(FUTEX_WAKE)} on a 32-bit word, and the availability of {@code futex_waitv} (Linux 5.16), which
 * {@link FutexWaitVector} sleeps on. A word in a {@code MAP_SHARED} file mapping is a <em>shared</em> futex: its key
 * is the file and offset, so a process that maps the same file elsewhere wakes the same waiters. Words only this
 * process sees use the cheaper private futexes.
 */
public final class Futex {

    static final int FUTEX_WAKE = 1;
    static final int FUTEX_PRIVATE_FLAG = 128;

    /** {@code __NR_futex}: architecture-specific (the generic table's number on aarch64). */
    static final long NR_FUTEX;
    /** {@code __NR_futex_waitv}: 449 in every table since Linux 5.16. */
    static final long NR_FUTEX_WAITV = 449;

    static {
        String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
        NR_FUTEX = switch (arch) {
            case "amd64", "x86_64" -> 202;
            case "aarch64", "arm64", "riscv64" -> 98;
            default -> -1;
        };
    }

    private Futex() {
    }

    /** Wakes up to {@code count} waiters on {@code word}; returns how many it woke. */
    public static int wake(MemorySegment word, int count, boolean shared) {
        long op = FUTEX_WAKE | (shared ? 0 : FUTEX_PRIVATE_FLAG);
        long r = Libc.syscall(NR_FUTEX, word.address(), op, count, 0, 0);
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
        if (NR_FUTEX <= 0) {
            return "no futex system call numbers for architecture " + System.getProperty("os.arch");
        }
        long r = Libc.syscall(NR_FUTEX_WAITV, 0, 0, 0, 0, 0);
        if (r == -Errno.ENOSYS) {
            return "the kernel has no futex_waitv (Linux 5.16 or later is needed)";
        }
        return null;
    }
}
