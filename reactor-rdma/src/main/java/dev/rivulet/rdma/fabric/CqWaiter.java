package dev.rivulet.rdma.fabric;

import dev.rivulet.core.loop.Waiter;
import dev.rivulet.rdma.fabric.sys.FidFabric;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * How a progress loop sleeps when its idle strategy says park: in the kernel, on the wait objects of its endpoints'
 * completion queues ({@code FI_WAIT_FD}, gathered in one epoll set), after {@code fi_trywait} confirmed nothing is
 * pending. An eventfd in the same set lets submitters wake it. A loop with any queue that has no fd (the {@code shm}
 * provider only offers {@code FI_WAIT_YIELD}; {@code fabric.completionWait=none} asks for none) falls back to parking
 * the thread on a timer.
 */
final class CqWaiter implements Waiter, AutoCloseable {

    /** The longest sleep without a wait object that a completion could end. */
    private static final long BLIND_PARK_NANOS = 10_000_000;

    private final MemorySegment fabric;
    private final EpollWaitSet epoll = new EpollWaitSet();
    private final List<MemorySegment> cqs = new CopyOnWriteArrayList<>();
    private final AtomicInteger withoutFd = new AtomicInteger();
    private final AtomicInteger version = new AtomicInteger();
    private int seenVersion = -1;
    private Arena fidsArena;
    private MemorySegment fids = MemorySegment.NULL;
    private int count;

    CqWaiter(MemorySegment fabric) {
        this.fabric = fabric;
    }

    /** Adds an endpoint's queue; {@code fd < 0} when the provider gave it no file descriptor. */
    void add(MemorySegment cq, int fd) {
        if (fd < 0) {
            withoutFd.incrementAndGet();
            return;
        }
        epoll.add(fd);
        cqs.add(cq);
        version.incrementAndGet();
    }

    /** Removes a queue before it is closed (on the loop thread, so never during {@link #await}). */
    void remove(MemorySegment cq, int fd) {
        if (fd < 0) {
            withoutFd.decrementAndGet();
            return;
        }
        cqs.remove(cq);
        try {
            epoll.remove(fd);
        } finally {
            version.incrementAndGet(); // whatever epoll said, the fid set fi_trywait sees must not keep a closed CQ
        }
    }

    @Override
    public void await(Thread loopThread, long nanos) {
        if (withoutFd.get() > 0 || cqs.isEmpty()) {
            // Nothing can end this sleep when a completion arrives: never longer than the default strategy's
            // longest park, even for a strategy that means to sleep until woken (IdleStrategy.blocking).
            LockSupport.parkNanos(this, Math.min(nanos, BLIND_PARK_NANOS));
            return;
        }
        refreshFids();
        // fi_trywait both drives progress and tells whether blocking is safe; -FI_EAGAIN means work is ready.
        if (FidFabric.trywait(fabric, fids, count) == 0) {
            epoll.await(nanos);
        }
    }

    private void refreshFids() {
        int v = version.get();
        if (v == seenVersion) {
            return;
        }
        List<MemorySegment> snapshot = List.copyOf(cqs);
        if (fidsArena != null) {
            fidsArena.close();
        }
        fidsArena = Arena.ofConfined();
        fids = fidsArena.allocate(ValueLayout.ADDRESS, Math.max(1, snapshot.size()));
        for (int i = 0; i < snapshot.size(); i++) {
            fids.setAtIndex(ValueLayout.ADDRESS, i, snapshot.get(i));
        }
        count = snapshot.size();
        seenVersion = v;
    }

    @Override
    public void wake(Thread loopThread) {
        epoll.wake();
        LockSupport.unpark(loopThread);
    }

    @Override
    public void close() {
        epoll.close();
    }
}
