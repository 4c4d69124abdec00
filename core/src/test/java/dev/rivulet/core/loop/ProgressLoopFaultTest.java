package dev.rivulet.core.loop;

import dev.rivulet.core.progress.IdleStrategy;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A progress loop survives whatever is thrown on it: by a task, by a pollable on every cycle, by its waiter, and by
 * the report of such a failure itself (a throwable whose message cannot be made, as when the class it needs cannot
 * be loaded), and serves everything else meanwhile. A loop whose thread died would wedge every connection on it.
 */
class ProgressLoopFaultTest {

    /** An Error whose text cannot be made: logging it throws too. */
    private static final class Unprintable extends Error {
        @Override
        public String getMessage() {
            throw new NoClassDefFoundError("injected: the message's class");
        }

        @Override
        public String toString() {
            throw new NoClassDefFoundError("injected: the message's class");
        }
    }

    @Test
    void tasksPollablesAndWaitersThatThrowDoNotStopTheLoop() throws Exception {
        try (ProgressEngine engine = new ProgressEngine("faults", 1, () -> IdleStrategy.blocking(0),
                TimeUnit.MILLISECONDS.toNanos(5))) {
            ProgressLoop loop = engine.loops().getFirst();
            AtomicInteger healthyPolls = new AtomicInteger();
            AtomicInteger awaits = new AtomicInteger();
            loop.register(() -> {
                throw new Unprintable();
            });
            loop.register(() -> {
                healthyPolls.incrementAndGet();
                return 0;
            });
            loop.waiter(new Waiter() {
                @Override
                public void await(Thread loopThread, long nanos) {
                    if (awaits.incrementAndGet() % 2 == 0) {
                        throw new OutOfMemoryError("injected: the waiter's system call");
                    }
                    PARK.await(loopThread, nanos);
                }

                @Override
                public void wake(Thread loopThread) {
                    PARK.wake(loopThread);
                }
            });
            for (int i = 0; i < 3; i++) {
                loop.execute(() -> {
                    throw new Unprintable();
                });
                loop.execute(() -> {
                    throw new StackOverflowError("injected");
                });
            }
            CountDownLatch ran = new CountDownLatch(1);
            loop.execute(ran::countDown);
            assertThat(ran.await(10, TimeUnit.SECONDS)).as("a task after the failing ones runs").isTrue();

            int before = healthyPolls.get();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (healthyPolls.get() < before + 10 || awaits.get() < 4) {
                assertThat(System.nanoTime() - deadline).as("the loop keeps polling and sleeping").isNegative();
                Thread.sleep(1);
            }
            assertThat(loop.isRunning()).isTrue();
        }
    }
}
