package dev.rivulet.rio.shm;

import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.loop.Waiter;
import dev.rivulet.rio.shm.sys.Futex;
import dev.rivulet.rio.shm.sys.FutexWaitVector;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;

/**
 * How a progress loop with shared-memory connections sleeps: on all of their doorbells at once, and on a private
 * word of its own that other threads of this process use to wake it ({@link #wake}), with one {@code futex_waitv}.
 * So a loop whose connections are idle costs no CPU, and it wakes within microseconds when its peer publishes
 * something, when the peer frees room it waits for, or when a thread here submits work.
 *
 * <p>Before sleeping it looks at its rings {@code spins} more times (cheap, and usually enough when the peer is busy),
 * then marks every doorbell {@link Doorbell#SLEEPING} and looks once more (see {@link Doorbell} for why no wake-up is
 * lost). A loop with more connections than a {@code futex_waitv} takes ({@link FutexWaitVector#MAX} less one) sleeps
 * on the first ones and at most {@link #CAPPED_SLEEP_NANOS} at a time, so the rest are still polled promptly.
 *
 * <p>Wires are added and removed on the loop's thread only; {@link #wake} may be called from any thread.
 */
final class ShmLoopWaiter implements Waiter {

    private static final Logger log = LoggerFactory.getLogger(ShmLoopWaiter.class);
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    static final long CAPPED_SLEEP_NANOS = 200_000;
    /**
     * The longest sleep while this loop has connections: a peer that dies rings no bell, and its end of the set-up
     * socket is looked at only when the loop runs; 20 wake-ups a second cost nothing measurable.
     */
    static final long PEER_CHECK_NANOS = 50_000_000;

    private final ProgressLoop loop;
    private final int spins;
    private final Arena arena = Arena.ofShared();
    /** 1 once another thread asked the loop to wake; reset after each sleep. */
    private final MemorySegment wakeWord = arena.allocate(ValueLayout.JAVA_INT);
    private final FutexWaitVector vector = new FutexWaitVector();
    private final ArrayList<ShmWire> wires = new ArrayList<>();
    private volatile boolean closed;

    ShmLoopWaiter(ProgressLoop loop, int spins) {
        this.loop = loop;
        this.spins = spins;
    }

    ProgressLoop loop() {
        return loop;
    }

    /** Loop thread: {@code w}'s doorbell joins the sleep. */
    void add(ShmWire w) {
        wires.add(w);
    }

    /** Loop thread. */
    void remove(ShmWire w) {
        wires.remove(w);
    }

    @Override
    public void await(Thread loopThread, long nanos) {
        if (closed) {
            java.util.concurrent.locks.LockSupport.parkNanos(this, nanos);
            return;
        }
        for (int i = 0; i < spins; i++) {
            if (anyReady()) {
                return;
            }
            Thread.onSpinWait();
        }
        int n = Math.min(wires.size(), FutexWaitVector.MAX - 1);
        for (int i = 0; i < n; i++) {
            wires.get(i).bell().sleeping();
        }
        try {
            // Looked at after the bells say SLEEPING: a peer that published before reading a bell is seen here.
            if (anyReady() || (int) INT.getVolatile(wakeWord, 0L) != 0) {
                return;
            }
            vector.set(0, wakeWord, 0, false);
            for (int i = 0; i < n; i++) {
                vector.set(i + 1, wires.get(i).bell().word(), Doorbell.SLEEPING, true);
            }
            long sleep = Math.min(nanos, n < wires.size() ? CAPPED_SLEEP_NANOS
                    : wires.isEmpty() ? Long.MAX_VALUE : PEER_CHECK_NANOS);
            vector.await(n + 1, sleep);
        } catch (RuntimeException e) {
            log.warn("futex_waitv failed on {}; parking instead", loop.name(), e);
            java.util.concurrent.locks.LockSupport.parkNanos(this, Math.min(nanos, CAPPED_SLEEP_NANOS));
        } finally {
            for (int i = 0; i < n; i++) {
                wires.get(i).bell().awake();
            }
            INT.setRelease(wakeWord, 0L, 0);
        }
    }

    private boolean anyReady() {
        for (int i = 0; i < wires.size(); i++) {
            if (wires.get(i).readyToPoll()) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void wake(Thread loopThread) {
        if (!closed) {
            try {
                INT.setVolatile(wakeWord, 0L, 1);
                Futex.wake(wakeWord, 1, false);
                return;
            } catch (IllegalStateException closedMeanwhile) {
                // the transport closed the word under us: fall through to a plain unpark
            }
        }
        java.util.concurrent.locks.LockSupport.unpark(loopThread);
    }

    /** After the loop's thread has stopped: back to plain parking, and the native memory goes. */
    void close() {
        closed = true;
        loop.waiter(Waiter.PARK);
        vector.close();
        arena.close();
    }
}
