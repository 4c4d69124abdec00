package dev.rivulet.core.progress;

import static dev.rivulet.core.progress.BackoffIdleStrategy.MIN_PARK_NANOS;
import static dev.rivulet.core.progress.BackoffIdleStrategy.SPINS;
import static dev.rivulet.core.progress.BackoffIdleStrategy.YIELDS;

/**
 * What a progress loop does after a duty cycle, told how much work the cycle found (Agrona's idle strategies).
 * Implementations are values, one per loop, and are only ever called from that loop's thread.
 */
public interface IdleStrategy {

    /**
     * Called after every cycle. {@code workCount > 0} resets the strategy; otherwise it spins, yields or parks
     * through {@code parker}, which returns early when work is submitted.
     */
    void idle(int workCount, Parker parker);

    /** Parks the calling loop thread for up to {@code nanos}; wakes early when work arrives. */
    @FunctionalInterface
    interface Parker {
        void park(long nanos);
    }

    /**
     * Busy-poll {@code spins} empty cycles, then {@code yields} with {@link Thread#yield()}, then park for
     * {@code minParkNanos} doubling to {@code maxParkNanos}. Parking is woken by submissions, so a long maximum
     * costs no latency for new work; it bounds how late a transport that cannot signal its own completions gets
     * polled.
     */
    static IdleStrategy backoff(int spins, int yields, long minParkNanos, long maxParkNanos) {
        return new BackoffIdleStrategy(spins, yields, minParkNanos, maxParkNanos, false);
    }

    /** Never parks: lowest latency, one core fully busy per loop. For benchmarks and dedicated cores only. */
    static IdleStrategy busySpin() {
        return (workCount, parker) -> Thread.onSpinWait();
    }

    /**
     * Spin {@code spins} empty cycles, then sleep until there is work: a completion, a submission from another
     * thread, or the wake-up the transport's timers need (a quarter of the heartbeat interval, 1.25 s by default).
     * No timed polling while idle, so an idle connection costs next to no CPU, and the sleep ends on the completion
     * itself where the backend sleeps on its completion queue (io_uring, libfabric with a wait object, the in-JVM
     * transport). Every gap in the work longer than the spins costs a thread wake-up, so a stream whose batches
     * come a little further apart than that pays one per batch: {@link #blocking()} backs off first.
     */
    static IdleStrategy blocking(int spins) {
        return new BackoffIdleStrategy(spins, 0, Long.MAX_VALUE, Long.MAX_VALUE, false);
    }

    /**
     * The default's spins, yields and short sleeps (10 µs doubling to 640 µs, about 1.3 ms in all), then a sleep
     * until there is work, as {@link #blocking(int)}: a busy loop behaves as with {@link #defaultStrategy()}, an idle
     * one as with {@code blocking(int)}.
     *
     * <p>Under load: gaps in the work shorter than the spin and yield phases (tens of microseconds) cost no
     * wake-up, and the short sleeps end early on a completion or a submission, so a stream of small messages pays
     * about the wake-ups the default pays. When idle: after each burst of work, about 7 timed wake-ups over 1.3 ms,
     * then none but the transport's timers (a quarter of the heartbeat interval).
     */
    static IdleStrategy blocking() {
        return new BackoffIdleStrategy(SPINS, YIELDS, MIN_PARK_NANOS, 640_000, true);
    }

    /**
     * The default: 200 spins (about 10 µs with an empty poll), 10 yields, then parks from 10 µs up to 10 ms. The
     * spin phase is what lets a reply that comes back within a loopback round trip be caught without a wake-up.
     */
    static IdleStrategy defaultStrategy() {
        return backoff(SPINS, YIELDS, MIN_PARK_NANOS, 10_000_000);
    }
}
