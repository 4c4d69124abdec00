package dev.rivulet.gpu;

import dev.rivulet.gpu.host.CopyHook;
import dev.rivulet.gpu.host.HostMemoryStandIn;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * A stand-in copy hook for tests: counts copies per direction, can slow them, hold chosen ones at a gate, fail the
 * n-th one of a direction, and sample a value while each copy runs.
 *
 * <p>Copies are numbered per direction over the hook's life: the n-th copy to host sees {@link #toHost} at n while
 * it runs. A held copy has not completed, so a test that holds the copy of chunk k knows for certain that whatever
 * it then waits for happened while that copy was still under way, however slowly each thread runs.
 */
final class ScriptedHook implements CopyHook {

    /** The copies of {@code direction} numbered {@code from} on wait until {@code open} is counted down. */
    private record Gate(CopyDirection direction, int from, CountDownLatch open) {
    }

    final AtomicInteger toHost = new AtomicInteger();
    final AtomicInteger toDevice = new AtomicInteger();
    volatile long delayNanos;
    volatile CopyDirection failDirection;
    volatile int failAt = -1;
    private final List<Gate> gates = new CopyOnWriteArrayList<>();
    volatile IntSupplier sample;
    final AtomicLong sampleMax = new AtomicLong(Long.MIN_VALUE);

    @Override
    public void beforeCopy(CopyDirection direction, long bytes) {
        int n = (direction == CopyDirection.TO_HOST ? toHost : toDevice).incrementAndGet();
        for (Gate g : gates) {
            if (g.direction == direction && n >= g.from) {
                await(g.open);
            }
        }
        // The copy "runs" for delayNanos; the sample is taken at its start and every 20 us while it runs.
        IntSupplier s = sample;
        long end = System.nanoTime() + delayNanos;
        do {
            if (s != null) {
                sampleMax.accumulateAndGet(s.getAsInt(), Math::max);
            }
            long left = end - System.nanoTime();
            if (left > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(Math.min(left, 20_000));
            }
        } while (System.nanoTime() < end);
        if (direction == failDirection && n == failAt) {
            throw new DeviceMemoryException("injected failure of copy " + n, HostMemoryStandIn.KIND, 77,
                    "standInErrorInjected", "test fault");
        }
    }

    private static void await(CountDownLatch open) {
        try {
            if (!open.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("gate never opened");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    void failNth(CopyDirection direction, int n) {
        failDirection = direction;
        failAt = n;
    }

    /** Holds every copy of {@code direction} that starts from now on, until the returned latch is counted down. */
    CountDownLatch hold(CopyDirection direction) {
        return holdFrom(direction, 0);
    }

    /**
     * Holds the copies of {@code direction} numbered {@code n} on (see {@link #toHost}, {@link #toDevice}) until the
     * returned latch is counted down; the earlier ones run.
     */
    CountDownLatch holdFrom(CopyDirection direction, int n) {
        CountDownLatch open = new CountDownLatch(1);
        gates.add(new Gate(direction, n, open));
        return open;
    }

    /** Opens every gate, so no copy stays held once a test ended, whichever way. */
    void openAll() {
        for (Gate g : gates) {
            g.open.countDown();
        }
    }
}
