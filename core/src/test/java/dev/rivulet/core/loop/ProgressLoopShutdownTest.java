package dev.rivulet.core.loop;

import dev.rivulet.core.progress.IdleStrategy;
import org.junit.jupiter.api.RepeatedTest;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A task submitted while its loop stops either runs, is refused at {@code execute}, or (a {@link RejectableTask})
 * hears it was rejected: none is silently lost, so no operation's subscriber waits forever on a closed transport.
 */
class ProgressLoopShutdownTest {

    @RepeatedTest(30)
    void everyTaskSubmittedDuringShutdownRunsOrIsRejected() throws Exception {
        AtomicInteger submitted = new AtomicInteger();
        AtomicInteger ran = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        RejectableTask task = new RejectableTask() {
            @Override
            public void run() {
                ran.incrementAndGet();
            }

            @Override
            public void rejected() {
                rejected.incrementAndGet();
            }
        };
        ProgressEngine engine = new ProgressEngine("shutdown", 1, () -> IdleStrategy.blocking(0));
        ProgressLoop loop = engine.nextLoop();
        CountDownLatch started = new CountDownLatch(3);
        List<Thread> submitters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            submitters.add(Thread.ofPlatform().start(() -> {
                started.countDown();
                while (true) {
                    submitted.incrementAndGet();
                    try {
                        loop.execute(task);
                    } catch (RejectedExecutionException e) {
                        refused.incrementAndGet();
                        return;
                    }
                }
            }));
        }
        started.await();
        engine.close();
        for (Thread t : submitters) {
            t.join();
        }
        assertThat(ran.get() + rejected.get() + refused.get()).as("tasks that ran, were rejected or refused")
                .isEqualTo(submitted.get());
    }
}
