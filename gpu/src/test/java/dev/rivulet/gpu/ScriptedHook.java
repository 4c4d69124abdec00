package dev.rivulet.gpu;

import dev.rivulet.gpu.host.CopyHook;
import dev.rivulet.gpu.host.HostMemoryStandIn;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * A stand-in copy hook for tests: counts copies per direction, can slow them, hold them at a gate, fail the n-th one
 * of a direction, and sample a value while each copy runs.
 */
final class ScriptedHook implements CopyHook {

    final AtomicInteger toHost = new AtomicInteger();
    final AtomicInteger toDevice = new AtomicInteger();
    volatile long delayNanos;
    volatile CopyDirection failDirection;
    volatile int failAt = -1;
    volatile CountDownLatch gate;
    volatile CopyDirection gated;
    volatile IntSupplier sample;
    final AtomicLong sampleMax = new AtomicLong(Long.MIN_VALUE);

    @Override
    public void beforeCopy(CopyDirection direction, long bytes) {
        int n = (direction == CopyDirection.TO_HOST ? toHost : toDevice).incrementAndGet();
        CountDownLatch g = gate;
        if (g != null && gated == direction) {
            try {
                if (!g.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("gate never opened");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
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

    void failNth(CopyDirection direction, int n) {
        failDirection = direction;
        failAt = n;
    }

    CountDownLatch hold(CopyDirection direction) {
        CountDownLatch l = new CountDownLatch(1);
        gated = direction;
        gate = l;
        return l;
    }
}
