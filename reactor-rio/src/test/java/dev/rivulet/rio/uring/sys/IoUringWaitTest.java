package dev.rivulet.rio.uring.sys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rivulet.core.sys.Descriptors;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Parking in {@code io_uring_enter}: bounded by a timeout, and woken early through an eventfd. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class IoUringWaitTest {

    private static final Duration TIMEOUT = Duration.ofMillis(200);

    record Completion(long userData, int res, int flags) {
    }

    @BeforeAll
    static void requireIoUring() {
        assumeTrue(IoUring.availability().available(), IoUring.availability().reason());
    }

    @Test
    void waitWithNothingInFlightReturnsAfterAboutTheTimeout() {
        try (IoUring ring = IoUring.open(8)) {
            System.out.println("EXT_ARG supported: " + ring.hasFeature(IoUringConstants.IORING_FEAT_EXT_ARG));

            long elapsed = timed(() -> assertThat(ring.submitAndWait(1, TIMEOUT.toNanos())).isZero());

            assertThat(Duration.ofNanos(elapsed)).isBetween(TIMEOUT.minusMillis(20), TIMEOUT.plusSeconds(2));
            assertThat(ring.forEachCompletion((ud, res, flags) -> { })).isZero();
        }
    }

    @Test
    void timeoutSqeFallbackWaitsAboutTheTimeoutAndHidesItsOwnCompletion() {
        try (IoUring ring = IoUring.open(8)) {
            ring.useTimeoutSqeForWaits();

            long elapsed = timed(() -> assertThat(ring.submitAndWait(1, TIMEOUT.toNanos())).isZero());
            assertThat(Duration.ofNanos(elapsed)).isBetween(TIMEOUT.minusMillis(20), TIMEOUT.plusSeconds(2));
            assertThat(ring.forEachCompletion((ud, res, flags) -> { })).as("internal CQE hidden").isZero();

            List<Completion> seen = new ArrayList<>();
            ring.nextSqe().prepNop().userData(3);
            Rings.reapUntil(ring, () -> !seen.isEmpty(),
                    (ud, res, flags) -> seen.add(new Completion(ud, res, flags)), Duration.ofSeconds(5), "NOP");
            assertThat(seen).containsExactly(new Completion(3, 0, 0));
        }
    }

    @Test
    void eventfdWriteFromAnotherThreadWakesTheWaiter() throws InterruptedException {
        int efd = Descriptors.eventfd(0, Descriptors.EFD_CLOEXEC);
        Thread waker = null;
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(8)) {
            MemorySegment counter = arena.allocate(ValueLayout.JAVA_LONG);
            ring.nextSqe().prepRead(efd, counter, 0).userData(77);
            ring.submit();
            waker = Thread.ofPlatform().start(() -> {
                sleep(150);
                Descriptors.eventfdWrite(efd, 5);
            });

            List<Completion> seen = new ArrayList<>();
            long elapsed = timed(() -> ring.submitAndWait(1, Duration.ofSeconds(20).toNanos()));
            ring.forEachCompletion((ud, res, flags) -> seen.add(new Completion(ud, res, flags)));

            assertThat(seen).containsExactly(new Completion(77, 8, 0));
            assertThat(counter.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(5);
            assertThat(Duration.ofNanos(elapsed)).isBetween(Duration.ofMillis(100), Duration.ofSeconds(10));
        } finally {
            if (waker != null) {
                waker.join(5_000);
            }
            Descriptors.closeOrThrow(efd);
        }
    }

    @Test
    void eventfdCounterRoundTripsThroughPlainReadAndWrite() {
        int efd = Descriptors.eventfd(0, Descriptors.EFD_CLOEXEC | Descriptors.EFD_NONBLOCK);
        try {
            Descriptors.eventfdWrite(efd, 2);
            Descriptors.eventfdWrite(efd, 3);
            assertThat(Descriptors.eventfdRead(efd)).isEqualTo(5);
        } finally {
            Descriptors.closeOrThrow(efd);
        }
    }

    private static long timed(Runnable r) {
        long t0 = System.nanoTime();
        r.run();
        return System.nanoTime() - t0;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
