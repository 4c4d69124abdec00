package dev.rivulet.core.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * The errno values Rivulet's bindings and their callers branch on (x86-64 / aarch64 Linux, {@code <errno.h>}), and
 * libc's names and texts for them.
 *
 * <p>Kernel-style results carry these negated ({@code res = -errno}); the io_uring ABI test checks every value against
 * the installed headers.
 */
public final class Errno {

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int ESRCH = 3;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int EEXIST = 17;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    /** The system-wide table of open files is full. */
    public static final int ENFILE = 23;
    /** This process has as many descriptors open as {@code RLIMIT_NOFILE} allows. */
    public static final int EMFILE = 24;
    public static final int EPIPE = 32;
    public static final int ENOSYS = 38;
    public static final int ETIME = 62;
    public static final int EOPNOTSUPP = 95;
    public static final int EAFNOSUPPORT = 97;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;
    public static final int ENETUNREACH = 101;
    /** accept: a connection was aborted (the peer reset it) before it was accepted. */
    public static final int ECONNABORTED = 103;
    public static final int ECONNRESET = 104;
    public static final int ENOBUFS = 105;
    public static final int ENOTCONN = 107;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNREFUSED = 111;
    public static final int EHOSTUNREACH = 113;
    public static final int EALREADY = 114;
    public static final int EINPROGRESS = 115;
    public static final int ECANCELED = 125;

    // glibc >= 2.32: thread-safe, locale-independent, return pointers into static tables (never freed).
    private static final Optional<MethodHandle> STRERRORDESC_NP =
            Downcalls.optional("strerrordesc_np", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    private static final Optional<MethodHandle> STRERRORNAME_NP =
            Downcalls.optional("strerrorname_np", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    // Any libc; the JVM never calls setlocale, so its text is the C locale's as well.
    private static final Optional<MethodHandle> STRERROR =
            Downcalls.optional("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private Errno() {
    }

    /** The symbolic name ({@code "EAGAIN"}), or {@code "errno N"} when libc cannot name it. */
    public static String name(int errno) {
        return cString(STRERRORNAME_NP, errno).orElse("errno " + errno);
    }

    /** libc's description ({@code "Resource temporarily unavailable"}), or {@code "unknown error"}. */
    public static String describe(int errno) {
        return cString(STRERRORDESC_NP, errno).or(() -> cString(STRERROR, errno)).orElse("unknown error");
    }

    @SuppressWarnings("restricted") // reinterpret of a NUL-terminated string from libc's static tables
    private static Optional<String> cString(Optional<MethodHandle> function, int errno) {
        if (function.isEmpty()) {
            return Optional.empty();
        }
        try {
            MemorySegment p = (MemorySegment) function.get().invokeExact(errno);
            if (p.address() == 0) {
                return Optional.empty();
            }
            // A zero-length pointer result; widen it just enough to read the NUL-terminated text.
            return Optional.of(p.reinterpret(4096).getString(0));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
