package dev.rivulet.rio.shm.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Locale;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * libc's {@code syscall(2)} for the calls glibc has no wrapper for, and the errno capture every handle here shares.
 * Arguments go as {@code long}s: {@code syscall} reads each variadic argument as a {@code long}, so an {@code int}
 * passed as such could arrive with stale upper bits.
 */
final class Syscalls {

    static final int EPERM = 1;
    static final int ESRCH = 3;
    static final int EINTR = 4;
    static final int EFAULT = 14;
    static final int EAGAIN = 11;
    static final int EINVAL = 22;
    static final int ENOSYS = 38;
    static final int ETIMEDOUT = 110;

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

    static final Linker LINKER = Linker.nativeLinker();
    static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    /** One capture segment per thread, freed with the thread: steady-state calls allocate nothing. */
    private static final ThreadLocal<MemorySegment> THREAD_STATE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE_LAYOUT));

    /** {@code long syscall(long number, long a1, long a2, long a3, long a4, long a5)}, variadic from a1. */
    private static final MethodHandle SYSCALL = capturing("syscall", FunctionDescriptor.of(JAVA_LONG, JAVA_LONG,
            JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.firstVariadicArg(1));

    private Syscalls() {
    }

    static boolean architectureKnown() {
        return NR_FUTEX > 0;
    }

    @SuppressWarnings("restricted") // downcallHandle: the module runs with --enable-native-access
    static MethodHandle capturing(String name, FunctionDescriptor descriptor, Linker.Option... extra) {
        Linker.Option[] options = new Linker.Option[extra.length + 1];
        options[0] = CAPTURE_ERRNO;
        System.arraycopy(extra, 0, options, 1, extra.length);
        MemorySegment symbol = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new UnsatisfiedLinkError("libc has no symbol " + name));
        return LINKER.downcallHandle(symbol, descriptor, options);
    }

    static MemorySegment threadState() {
        return THREAD_STATE.get();
    }

    static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** Runs system call {@code number}; returns its result, or {@code -errno} when it failed. */
    static long syscall(long number, long a1, long a2, long a3, long a4, long a5) {
        MemorySegment state = threadState();
        long r;
        try {
            r = (long) SYSCALL.invokeExact(state, number, a1, a2, a3, a4, a5);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return r >= 0 ? r : -errno(state);
    }

    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }
}
