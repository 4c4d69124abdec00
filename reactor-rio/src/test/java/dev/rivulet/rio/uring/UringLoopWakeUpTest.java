package dev.rivulet.rio.uring;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.loop.ProgressEngine;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.progress.IdleStrategy;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.fail;

/**
 * A loop asleep in {@code io_uring_enter} without a timeout wakes for every task another thread submits: the
 * submitter's eventfd write completes the read the ring always has posted. The loop sleeps right after every task
 * ({@code blocking(0)}, no park limit), so each submission races its decision to sleep; a lost wake-up would leave
 * it asleep for good.
 */
@Timeout(120)
class UringLoopWakeUpTest {

    private static final long STRANDED_NANOS = TimeUnit.SECONDS.toNanos(10);

    @BeforeAll
    static void requireIoUring() {
        Requirements.assume(new UringTransportProvider().availability(), "io_uring");
    }

    @Test
    void aTaskSubmittedWhileTheLoopEntersTheRingToSleepIsNeverStranded() throws Exception {
        try (ProgressEngine engine = new ProgressEngine("uring-wake", 1, () -> IdleStrategy.blocking(0))) {
            ProgressLoop loop = engine.loops().getFirst();
            CompletableFuture<UringLoop> attached = new CompletableFuture<>();
            loop.execute(() -> {
                UringLoop r = new UringLoop(loop, 64, 0, false, Integer.MAX_VALUE, true);
                loop.register(r);
                loop.waiter(r);
                attached.complete(r);
            });
            UringLoop ring = attached.get(20, TimeUnit.SECONDS);
            try {
                AtomicLong ran = new AtomicLong();
                Runnable task = ran::incrementAndGet;
                for (long i = 1; i <= 50_000; i++) {
                    loop.execute(task);
                    long deadline = System.nanoTime() + STRANDED_NANOS;
                    while (ran.get() < i) {
                        if (System.nanoTime() - deadline > 0) {
                            fail("task " + i + " stranded: the loop slept in the ring through its submission");
                        }
                        Thread.onSpinWait();
                    }
                }
            } finally {
                engine.close();
                ring.close();
            }
        }
    }
}
