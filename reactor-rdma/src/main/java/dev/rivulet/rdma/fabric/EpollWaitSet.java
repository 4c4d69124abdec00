package dev.rivulet.rdma.fabric;

import dev.rivulet.core.sys.Descriptors;
import dev.rivulet.core.sys.Epoll;
import dev.rivulet.core.sys.EpollEvent;
import dev.rivulet.core.sys.Timespec;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * What the progress loop's sleep waits on: an epoll set over completion-queue file descriptors plus an eventfd that
 * submitters write to wake the loop.
 */
final class EpollWaitSet implements AutoCloseable {

    private static final int MAX_EVENTS = 16;

    private final Arena arena = Arena.ofShared();
    private final int epfd;
    private final int wakeFd;
    private final MemorySegment events = arena.allocate(EpollEvent.LAYOUT, MAX_EVENTS);
    private final MemorySegment timeout = arena.allocate(Timespec.LAYOUT);
    private final MemorySegment one = arena.allocate(JAVA_LONG);
    private final MemorySegment drain = arena.allocate(JAVA_LONG);
    private final MemorySegment ctlEvent = arena.allocate(EpollEvent.LAYOUT);

    EpollWaitSet() {
        epfd = Epoll.create(Epoll.EPOLL_CLOEXEC);
        try {
            wakeFd = Descriptors.eventfd(0, Descriptors.EFD_NONBLOCK | Descriptors.EFD_CLOEXEC);
        } catch (RuntimeException e) {
            Descriptors.close(epfd);
            arena.close();
            throw e;
        }
        one.set(JAVA_LONG, 0, 1);
        add(wakeFd);
    }

    synchronized void add(int fd) {
        if (ctl(Epoll.EPOLL_CTL_ADD, fd) != 0) {
            throw new IllegalStateException("epoll_ctl(ADD, " + fd + ") failed");
        }
    }

    synchronized void remove(int fd) {
        ctl(Epoll.EPOLL_CTL_DEL, fd);
    }

    private int ctl(int op, int fd) {
        EpollEvent.set(ctlEvent, 0, Epoll.EPOLLIN, fd);
        return Epoll.ctl(epfd, op, fd, ctlEvent);
    }

    /** Sleeps until a registered fd is readable, {@link #wake()} is called, or {@code nanos} pass. */
    void await(long nanos) {
        Timespec.setNanos(timeout, nanos);
        int n = Epoll.await(epfd, events, MAX_EVENTS, timeout);
        for (int i = 0; i < n; i++) {
            if ((int) EpollEvent.data(events, i) == wakeFd) {
                Descriptors.read(wakeFd, drain); // re-arm: eventfd stays readable until read
            }
        }
    }

    /** Ends a current or the next {@link #await}; any thread. */
    void wake() {
        Descriptors.write(wakeFd, one);
    }

    @Override
    public void close() {
        Descriptors.close(wakeFd);
        Descriptors.close(epfd);
        arena.close();
    }
}
