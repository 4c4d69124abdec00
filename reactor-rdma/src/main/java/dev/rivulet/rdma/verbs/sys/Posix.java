package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;

/**
 * The libc calls and constants around the verbs objects: a completion channel and an rdma_cm event channel are file
 * descriptors, made non-blocking with {@code fcntl} and waited on with {@code ppoll} next to an {@code eventfd} that
 * other threads write to wake the waiter. Error numbers are Linux's (checked by {@code VerbsAbiTest} like the verbs
 * constants).
 */
public final class Posix {

    public static final int AF_INET = 2;
    public static final int AF_INET6 = 10;

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int ENOSYS = 38;
    public static final int EOPNOTSUPP = 95;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;
    public static final int ENETUNREACH = 101;
    public static final int ECONNRESET = 104;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNREFUSED = 111;
    public static final int EHOSTUNREACH = 113;

    public static final int F_GETFL = 3;
    public static final int F_SETFL = 4;
    public static final int O_NONBLOCK = 0x800;
    public static final int POLLIN = 0x001;
    public static final int EFD_NONBLOCK = 0x800;
    public static final int EFD_CLOEXEC = 0x80000;

    /** {@code struct pollfd}: {@code int fd; short events; short revents}. */
    public static final StructLayout POLLFD = MemoryLayout.structLayout(
            JAVA_INT.withName("fd"),
            JAVA_SHORT.withName("events"),
            JAVA_SHORT.withName("revents"))
            .withName("pollfd");

    private static final long POLLFD_FD = VerbsDispatch.offset(POLLFD, "fd");
    private static final long POLLFD_EVENTS = VerbsDispatch.offset(POLLFD, "events");
    private static final long POLLFD_REVENTS = VerbsDispatch.offset(POLLFD, "revents");

    private static final SymbolLookup LIBC = Linker.nativeLinker().defaultLookup();
    private static final MethodHandle EVENTFD = bind("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle PPOLL = bindWithErrno("ppoll",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
    private static final MethodHandle READ = bind("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG));
    private static final MethodHandle WRITE = bind("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG));
    private static final MethodHandle CLOSE = bind("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle FCNTL = VerbsDispatch.variadicDowncall(symbol("fcntl"),
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), 2);
    private static final MethodHandle STRERROR = bind("strerror", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private Posix() {
    }

    /** {@code strerror(errnum)}: the C library's text for a positive error number. */
    public static String strerror(int errnum) {
        try {
            String s = VerbsDispatch.string((MemorySegment) STRERROR.invokeExact(errnum));
            return s == null ? "error " + errnum : s;
        } catch (Throwable t) {
            throw VerbsDispatch.rethrow(t);
        }
    }

    /** {@code eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)}: a wake-up descriptor, or -1. */
    public static int eventfd() {
        try {
            return (int) EVENTFD.invokeExact(0, EFD_NONBLOCK | EFD_CLOEXEC);
        } catch (Throwable t) {
            throw VerbsDispatch.rethrow(t);
        }
    }

    /** Sets {@code O_NONBLOCK} on {@code fd}; returns 0 or -1. */
    public static int setNonBlocking(int fd) {
        try {
            int flags = (int) FCNTL.invokeExact(fd, F_GETFL, 0);
            if (flags < 0) {
                return -1;
            }
            return (int) FCNTL.invokeExact(fd, F_SETFL, flags | O_NONBLOCK);
        } catch (Throwable t) {
            throw VerbsDispatch.rethrow(t);
        }
    }

    /** Adds 1 to an eventfd's counter (makes it readable); errors are ignored, a full counter is readable anyway. */
    public static void signal(int eventFd, MemorySegment eightBytes) {
        eightBytes.set(JAVA_LONG, 0, 1L);
        try {
            long ignored = (long) WRITE.invokeExact(eventFd, eightBytes, 8L);
        } catch (Throwable t) {
            throw VerbsDispatch.rethrow(t);
        }
    }

    /** Reads (and so resets) an eventfd's counter; harmless when it is 0 (non-blocking: EAGAIN). */
    public static void drain(int eventFd, MemorySegment eightBytes) {
        try {
            long ignored = (long) READ.invokeExact(eventFd, eightBytes, 8L);
        } catch (Throwable t) {
            throw VerbsDispatch.rethrow(t);
        }
    }

    /** {@code close(fd)}. */
    public static int close(int fd) {
        try {
            return (int) CLOSE.invokeExact(fd);
        } catch (Throwable t) {
            throw VerbsDispatch.rethrow(t);
        }
    }

    /** Fills entry {@code i} of a {@code struct pollfd} array to wait for input on {@code fd}. */
    public static void pollIn(MemorySegment fds, int i, int fd) {
        long base = POLLFD.byteSize() * i;
        fds.set(JAVA_INT, base + POLLFD_FD, fd);
        fds.set(JAVA_SHORT, base + POLLFD_EVENTS, (short) POLLIN);
        fds.set(JAVA_SHORT, base + POLLFD_REVENTS, (short) 0);
    }

    /** Whether entry {@code i} reported input after {@link #ppoll}. */
    public static boolean readable(MemorySegment fds, int i) {
        return (fds.get(JAVA_SHORT, POLLFD.byteSize() * i + POLLFD_REVENTS) & POLLIN) != 0;
    }

    /**
     * {@code ppoll(fds, n, &timeout, NULL)} with a timeout of {@code nanos}: the number of ready descriptors, 0 on
     * timeout, or {@code -errno} ({@code -EINTR} when a signal ended the wait).
     *
     * @param timespec 16 bytes of scratch for the {@code struct timespec}
     * @param capture  scratch from {@link #errnoCapture}
     */
    public static int ppoll(MemorySegment fds, int n, long nanos, MemorySegment timespec, MemorySegment capture) {
        timespec.set(JAVA_LONG, 0, nanos / 1_000_000_000L);
        timespec.set(JAVA_LONG, 8, nanos % 1_000_000_000L);
        try {
            int rc = (int) PPOLL.invokeExact(capture, fds, (long) n, timespec, MemorySegment.NULL);
            return rc < 0 ? -VerbsDispatch.errno(capture) : rc;
        } catch (Throwable t) {
            throw VerbsDispatch.rethrow(t);
        }
    }

    /** Scratch for the {@code errno} of {@link #ppoll}, owned by the caller's arena. */
    public static MemorySegment errnoCapture(Arena arena) {
        return VerbsDispatch.errnoSegment(arena);
    }

    private static MemorySegment symbol(String name) {
        return LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
    }

    private static MethodHandle bind(String name, FunctionDescriptor d) {
        return VerbsDispatch.downcall(symbol(name), d);
    }

    private static MethodHandle bindWithErrno(String name, FunctionDescriptor d) {
        return VerbsDispatch.downcallWithErrno(symbol(name), d);
    }
}
