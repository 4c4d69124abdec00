package dev.rivulet.rdma.fabric;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The few libc calls the progress loop's sleep needs: an epoll set over completion-queue file descriptors plus an
 * eventfd that submitters write to wake the loop. Linux x86-64 layouts: {@code struct epoll_event} is packed
 * (u32 events at 0, u64 data at 4; 12 bytes), {@code struct timespec} is two longs.
 */
final class Epoll implements AutoCloseable {

    static final int EPOLLIN = 0x001;
    private static final int EPOLL_CTL_ADD = 1;
    private static final int EPOLL_CTL_DEL = 2;
    private static final int EFD_NONBLOCK = 0x800;
    private static final int EFD_CLOEXEC = 0x80000;
    private static final int EPOLL_CLOEXEC = 0x80000;
    static final long EVENT_SIZE = 12;
    private static final int MAX_EVENTS = 16;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final MethodHandle EPOLL_CREATE1 = bind("epoll_create1", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle EPOLL_CTL = bind("epoll_ctl",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS));
    private static final MethodHandle EPOLL_PWAIT2 = bind("epoll_pwait2",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle EVENTFD = bind("eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle WRITE = bind("write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG));
    private static final MethodHandle READ = bind("read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS,
            JAVA_LONG));
    private static final MethodHandle CLOSE = bind("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));

    private final Arena arena = Arena.ofShared();
    private final int epfd;
    private final int wakeFd;
    private final MemorySegment events = arena.allocate(EVENT_SIZE * MAX_EVENTS, 8);
    private final MemorySegment timeout = arena.allocate(MemoryLayout.sequenceLayout(2, JAVA_LONG));
    private final MemorySegment one = arena.allocate(JAVA_LONG);
    private final MemorySegment drain = arena.allocate(JAVA_LONG);
    private final MemorySegment ctlEvent = arena.allocate(EVENT_SIZE, 8);

    Epoll() {
        try {
            epfd = (int) EPOLL_CREATE1.invokeExact(EPOLL_CLOEXEC);
            wakeFd = (int) EVENTFD.invokeExact(0, EFD_NONBLOCK | EFD_CLOEXEC);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        if (epfd < 0 || wakeFd < 0) {
            throw new IllegalStateException("epoll_create1/eventfd failed");
        }
        one.set(JAVA_LONG, 0, 1);
        add(wakeFd);
    }

    synchronized void add(int fd) {
        ctl(EPOLL_CTL_ADD, fd);
    }

    synchronized void remove(int fd) {
        ctl(EPOLL_CTL_DEL, fd);
    }

    private void ctl(int op, int fd) {
        ctlEvent.set(JAVA_INT, 0, EPOLLIN);
        ctlEvent.set(ValueLayout.JAVA_LONG_UNALIGNED, 4, fd);
        try {
            int rc = (int) EPOLL_CTL.invokeExact(epfd, op, fd, ctlEvent);
            if (rc != 0 && op == EPOLL_CTL_ADD) {
                throw new IllegalStateException("epoll_ctl(ADD, " + fd + ") failed");
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Sleeps until a registered fd is readable, {@link #wake()} is called, or {@code nanos} pass. */
    void await(long nanos) {
        timeout.set(JAVA_LONG, 0, nanos / 1_000_000_000L);
        timeout.set(JAVA_LONG, 8, nanos % 1_000_000_000L);
        try {
            int n = (int) EPOLL_PWAIT2.invokeExact(epfd, events, MAX_EVENTS, timeout, MemorySegment.NULL);
            for (int i = 0; i < n; i++) {
                if ((int) events.get(ValueLayout.JAVA_LONG_UNALIGNED, EVENT_SIZE * i + 4) == wakeFd) {
                    long r = (long) READ.invokeExact(wakeFd, drain, 8L); // re-arm: eventfd stays readable until read
                }
            }
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /** Ends a current or the next {@link #await}; any thread. */
    void wake() {
        try {
            long w = (long) WRITE.invokeExact(wakeFd, one, 8L);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    @Override
    public void close() {
        try {
            int a = (int) CLOSE.invokeExact(wakeFd);
            int b = (int) CLOSE.invokeExact(epfd);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        arena.close();
    }

    private static MethodHandle bind(String name, FunctionDescriptor d) {
        return LINKER.downcallHandle(LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError(name)), d);
    }
}
