package dev.rivulet.core.progress;

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
        return new BackoffIdleStrategy(spins, yields, minParkNanos, maxParkNanos);
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
     * transport). A message arriving after the spins pays one thread wake-up.
     */
    static IdleStrategy blocking(int spins) {
        return new BackoffIdleStrategy(spins, 0, Long.MAX_VALUE, Long.MAX_VALUE);
    }

    /** {@link #blocking(int)} after 200 spins, the default's spin phase. */
    static IdleStrategy blocking() {
        return blocking(200);
    }

    /**
     * The default: 200 spins (about 10 µs with an empty poll), 10 yields, then parks from 10 µs up to 10 ms. The
     * spin phase is what lets a reply that comes back within a loopback round trip be caught without a wake-up.
     */
    static IdleStrategy defaultStrategy() {
        return backoff(200, 10, 10_000, 10_000_000);
    }
}
