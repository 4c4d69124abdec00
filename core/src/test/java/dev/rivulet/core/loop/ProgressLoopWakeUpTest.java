package dev.rivulet.core.loop;

import dev.rivulet.core.progress.IdleStrategy;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * A loop that sleeps until woken (no timed polling) must wake for every submission, however the submission and
 * the loop's decision to sleep interleave, and a batch submitted while it sleeps must cost one signal, not one per
 * task. The loop sleeps right after every task here ({@code blocking(0)}, no park limit), so each submission races
 * its decision to sleep; a lost wake-up would leave the loop asleep for good.
 */
class ProgressLoopWakeUpTest {

    private static final long STRANDED_NANOS = TimeUnit.SECONDS.toNanos(10);

    /** Counts the sleeps the idle strategy asks for, and the signals and sleeps the waiter sees. */
    private static final class Counting implements Waiter {
        final LongAdder parks = new LongAdder();
        final LongAdder awaits = new LongAdder();
        final LongAdder wakes = new LongAdder();

        IdleStrategy blockingAtOnce() {
            IdleStrategy inner = IdleStrategy.blocking(0);
            return (work, parker) -> inner.idle(work, nanos -> {
                parks.increment();
                parker.park(nanos);
            });
        }

        @Override
        public void await(Thread loopThread, long nanos) {
            awaits.increment();
            PARK.await(loopThread, nanos);
        }

        @Override
        public void wake(Thread loopThread) {
            wakes.increment();
            PARK.wake(loopThread);
        }
    }

    @Test
    void aTaskSubmittedWhileTheLoopDecidesToSleepIsNeverStranded() {
        Counting counting = new Counting();
        try (ProgressEngine engine = new ProgressEngine("wake-race", 1, counting::blockingAtOnce)) {
            ProgressLoop loop = engine.nextLoop();
            loop.waiter(counting);
            AtomicLong ran = new AtomicLong();
            Runnable task = ran::incrementAndGet;
            for (long i = 1; i <= 200_000; i++) {
                loop.execute(task); // the loop ran the previous task a moment ago and is on its way to sleep
                long deadline = System.nanoTime() + STRANDED_NANOS;
                while (ran.get() < i) {
                    if (System.nanoTime() - deadline > 0) {
                        fail("task " + i + " stranded: the loop slept through its submission");
                    }
                    Thread.onSpinWait();
                }
            }
            assertThat(counting.awaits.sum()).as("sleeps the submissions ended").isPositive();
        }
    }

    @Test
    void submittersThatFindTheLoopSignalledDoNotSignalAgain() throws Exception {
        Counting counting = new Counting();
        int threads = 4;
        int perThread = 50_000;
        try (ProgressEngine engine = new ProgressEngine("wake-once", 1, counting::blockingAtOnce)) {
            ProgressLoop loop = engine.nextLoop();
            loop.waiter(counting);
            CountDownLatch all = new CountDownLatch(threads * perThread);
            CountDownLatch start = new CountDownLatch(1);
            List<Thread> submitters = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                submitters.add(Thread.ofPlatform().start(() -> {
                    try {
                        start.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    for (int i = 0; i < perThread; i++) {
                        loop.execute(all::countDown);
                    }
                }));
            }
            start.countDown();
            for (Thread t : submitters) {
                t.join();
            }
            assertThat(all.await(30, TimeUnit.SECONDS)).as("every task ran").isTrue();
            // Each signal took the flag the loop set for one sleep: never more signals than sleeps.
            assertThat(counting.wakes.sum()).as("signals").isLessThanOrEqualTo(counting.parks.sum());
        }
    }
}
