package dev.rivulet.core.loop;

import dev.rivulet.core.progress.IdleStrategy;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class ProgressLoopParkLimitTest {

    @Test
    void aBlockingLoopSleepsNoLongerThanItsParkLimitAndWakesForSubmissions() throws Exception {
        long limit = TimeUnit.MILLISECONDS.toNanos(40);
        AtomicLong longest = new AtomicLong();
        CountDownLatch slept = new CountDownLatch(3);
        try (ProgressEngine engine = new ProgressEngine("park-limit", 1, () -> IdleStrategy.blocking(0), limit)) {
            ProgressLoop loop = engine.loops().getFirst();
            loop.waiter(new Waiter() {
                @Override
                public void await(Thread loopThread, long nanos) {
                    longest.accumulateAndGet(nanos, Math::max);
                    PARK.await(loopThread, nanos);
                    slept.countDown();
                }

                @Override
                public void wake(Thread loopThread) {
                    PARK.wake(loopThread);
                }
            });
            assertThat(slept.await(10, TimeUnit.SECONDS)).isTrue();
            CountDownLatch ran = new CountDownLatch(1);
            loop.execute(ran::countDown);
            assertThat(ran.await(5, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(longest.get()).isEqualTo(limit);
    }
}
