package dev.rivulet.core.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * {@code epoll(7)}: one descriptor a thread sleeps on for many others (completion-queue descriptors, an eventfd).
 * Results are {@code -errno} on failure, as on every data-path call of this package.
 */
public final class Epoll {

    public static final int EPOLLIN = 0x001;
    public static final int EPOLL_CTL_ADD = 1;
    public static final int EPOLL_CTL_DEL = 2;
    public static final int EPOLL_CLOEXEC = 0x80000;

    private static final MethodHandle CREATE1 = Downcalls.capturing("epoll_create1",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle CTL = Downcalls.capturing("epoll_ctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle PWAIT2 = Downcalls.capturing("epoll_pwait2",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));

    private Epoll() {
    }

    /** {@code epoll_create1(flags)}: the epoll descriptor. */
    public static int create(int flags) {
        MemorySegment state = Downcalls.threadState();
        try {
            int fd = (int) CREATE1.invokeExact(state, flags);
            if (fd < 0) {
                throw new ErrnoException("epoll_create1", Downcalls.errno(state));
            }
            return fd;
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@code epoll_ctl(epfd, op, fd, event)} with an {@link EpollEvent}: 0 or {@code -errno}. */
    public static int ctl(int epfd, int op, int fd, MemorySegment event) {
        MemorySegment state = Downcalls.threadState();
        try {
            int rc = (int) CTL.invokeExact(state, epfd, op, fd, event);
            return rc == 0 ? 0 : -Downcalls.errno(state);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code epoll_pwait2(epfd, events, maxEvents, timeout, NULL)}: how many of the {@link EpollEvent}s were
     * filled, 0 when {@code timeout} (a {@link Timespec}) passed, or {@code -errno} ({@code -EINTR} on a signal).
     */
    public static int await(int epfd, MemorySegment events, int maxEvents, MemorySegment timeout) {
        MemorySegment state = Downcalls.threadState();
        try {
            int n = (int) PWAIT2.invokeExact(state, epfd, events, maxEvents, timeout, MemorySegment.NULL);
            return n >= 0 ? n : -Downcalls.errno(state);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
