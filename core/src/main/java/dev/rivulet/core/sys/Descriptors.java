package dev.rivulet.core.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * File descriptors: {@code close}, {@code read}/{@code write}, {@code fcntl} flags, {@code eventfd} (the wake-up
 * descriptor a thread parked in the kernel waits on next to its real work) and {@code poll}/{@code ppoll}.
 *
 * <p>Calls on the data path return {@code -errno} rather than throwing, so expected outcomes ({@code EAGAIN},
 * {@code EINTR}) stay cheap; set-up calls throw {@link ErrnoException}. Constant values are Linux x86-64/aarch64
 * (checked by the io_uring ABI test against the headers).
 */
public final class Descriptors {

    public static final int O_NONBLOCK = 0x800;
    public static final int F_GETFL = 3;
    public static final int F_SETFL = 4;
    public static final int F_SETFD = 2;
    public static final int FD_CLOEXEC = 1;

    public static final int EFD_SEMAPHORE = 1;
    public static final int EFD_NONBLOCK = 0x800;
    public static final int EFD_CLOEXEC = 0x80000;

    public static final int POLLIN = 0x1;
    public static final int POLLOUT = 0x4;
    public static final int POLLERR = 0x8;
    public static final int POLLHUP = 0x10;
    public static final int POLLNVAL = 0x20;

    private static final MethodHandle CLOSE = Downcalls.capturing("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle READ = Downcalls.capturing("read",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle WRITE = Downcalls.capturing("write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    // int fcntl(int fd, int cmd, ...): glibc reads the variadic argument as a pointer-sized value, so pass 64 bits.
    private static final MethodHandle FCNTL = Downcalls.capturing("fcntl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG), Linker.Option.firstVariadicArg(2));
    private static final MethodHandle EVENTFD = Downcalls.capturing("eventfd",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle POLL = Downcalls.capturing("poll",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT));
    private static final MethodHandle PPOLL = Downcalls.capturing("ppoll",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));

    private Descriptors() {
    }

    /** {@code close(fd)}; returns 0 or {@code -errno}. */
    public static int close(int fd) {
        MemorySegment state = Downcalls.threadState();
        int r;
        try {
            r = (int) CLOSE.invokeExact(state, fd);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        return r == 0 ? 0 : -Downcalls.errno(state);
    }

    /**
     * {@code close(fd)}, throwing on failure. {@code EINTR} is not reported: on Linux the descriptor is released even
     * then, and retrying could close a descriptor another thread just received.
     */
    public static void closeOrThrow(int fd) {
        int r = close(fd);
        if (r < 0 && r != -Errno.EINTR) {
            throw new ErrnoException("close", -r);
        }
    }

    /** {@code read(fd, buf, buf.byteSize())}; returns bytes read or {@code -errno}. */
    public static long read(int fd, MemorySegment buf) {
        MemorySegment state = Downcalls.threadState();
        long r;
        try {
            r = (long) READ.invokeExact(state, fd, buf, buf.byteSize());
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        return r >= 0 ? r : -Downcalls.errno(state);
    }

    /** {@code write(fd, buf, buf.byteSize())}; returns bytes written or {@code -errno}. */
    public static long write(int fd, MemorySegment buf) {
        MemorySegment state = Downcalls.threadState();
        long r;
        try {
            r = (long) WRITE.invokeExact(state, fd, buf, buf.byteSize());
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        return r >= 0 ? r : -Downcalls.errno(state);
    }

    /** Sets or clears {@code O_NONBLOCK} with {@code fcntl(F_GETFL/F_SETFL)}. */
    public static void setNonBlocking(int fd, boolean nonBlocking) {
        int flags = checked("fcntl(F_GETFL)", fcntl(fd, F_GETFL, 0L));
        int wanted = nonBlocking ? flags | O_NONBLOCK : flags & ~O_NONBLOCK;
        if (wanted != flags) {
            checked("fcntl(F_SETFL)", fcntl(fd, F_SETFL, wanted));
        }
    }

    /** Marks descriptor {@code fd} close-on-exec, so programs this process runs do not inherit it; 0 or -errno. */
    public static int closeOnExec(int fd) {
        int r = fcntl(fd, F_SETFD, FD_CLOEXEC);
        return r >= 0 ? 0 : r;
    }

    /** {@code fcntl(fd, cmd, arg)}: its result, or {@code -errno}. */
    private static int fcntl(int fd, int cmd, long arg) {
        MemorySegment state = Downcalls.threadState();
        int r;
        try {
            r = (int) FCNTL.invokeExact(state, fd, cmd, arg);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        return r >= 0 ? r : -Downcalls.errno(state);
    }

    // ---- eventfd --------------------------------------------------------------------------------------------

    /**
     * {@code eventfd(initval, flags)}: a counter fd. A thread parked in the kernel waiting for this fd to become
     * readable next to its real work is woken by {@link #eventfdWrite} from any thread.
     */
    public static int eventfd(int initialValue, int flags) {
        MemorySegment state = Downcalls.threadState();
        try {
            int fd = (int) EVENTFD.invokeExact(state, initialValue, flags);
            if (fd < 0) {
                throw new ErrnoException("eventfd", Downcalls.errno(state));
            }
            return fd;
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** Adds {@code value} to the eventfd counter (an 8-byte write). */
    public static void eventfdWrite(int fd, long value) {
        try (Arena scratch = Arena.ofConfined()) {
            eventfdWrite(fd, scratch.allocateFrom(JAVA_LONG, value));
        }
    }

    /**
     * Adds the 8-byte value already stored in {@code value} to the eventfd counter. Allocation-free, for wake-ups
     * from any thread: the segment is only read, so concurrent callers may share one.
     */
    public static void eventfdWrite(int fd, MemorySegment value) {
        long r = write(fd, value);
        if (r < 0) {
            throw new ErrnoException("write(eventfd)", (int) -r);
        }
    }

    /** Reads and resets the counter (an 8-byte read; blocks on a blocking eventfd whose counter is 0). */
    public static long eventfdRead(int fd) {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment v = scratch.allocate(JAVA_LONG);
            long r = read(fd, v);
            if (r < 0) {
                throw new ErrnoException("read(eventfd)", (int) -r);
            }
            return v.get(JAVA_LONG, 0);
        }
    }

    // ---- poll -----------------------------------------------------------------------------------------------

    /**
     * {@code poll} on one descriptor for at most {@code timeoutMillis}: the events that happened ({@link #POLLIN},
     * {@link #POLLOUT}, {@link #POLLERR}, {@link #POLLHUP}), 0 when the time ran out or a signal interrupted the
     * wait. {@code pollfd} is a {@link Pollfd} the caller owns.
     */
    public static int poll(MemorySegment pollfd, int fd, int events, int timeoutMillis) {
        Pollfd.set(pollfd, fd, events);
        MemorySegment state = Downcalls.threadState();
        int r;
        try {
            r = (int) POLL.invokeExact(state, pollfd, 1L, timeoutMillis);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (r < 0) {
            int errno = Downcalls.errno(state);
            if (errno == Errno.EINTR) {
                return 0;
            }
            throw new ErrnoException("poll", errno);
        }
        return r == 0 ? 0 : Pollfd.revents(pollfd);
    }

    /**
     * {@code ppoll(fds, n, &timeout, NULL)} on an array of {@link Pollfd}s for at most {@code nanos}: the number of
     * ready descriptors, 0 on timeout, or {@code -errno} ({@code -EINTR} when a signal ended the wait).
     *
     * @param timespec a {@link Timespec} of scratch for the timeout
     * @param state    a capture segment ({@link Downcalls#errnoState}) the caller owns
     */
    public static int ppoll(MemorySegment fds, int n, long nanos, MemorySegment timespec, MemorySegment state) {
        Timespec.setNanos(timespec, nanos);
        try {
            int rc = (int) PPOLL.invokeExact(state, fds, (long) n, timespec, MemorySegment.NULL);
            return rc < 0 ? -Downcalls.errno(state) : rc;
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    private static int checked(String function, int result) {
        if (result < 0) {
            throw new ErrnoException(function, -result);
        }
        return result;
    }
}
