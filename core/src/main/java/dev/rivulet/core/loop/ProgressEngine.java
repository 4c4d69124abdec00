package dev.rivulet.core.loop;

import dev.rivulet.core.progress.IdleStrategy;
import reactor.core.scheduler.Scheduler;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.IntStream;

/**
 * The polling threads of one transport (one by default). Endpoints are spread over the loops round-robin and stay
 * on theirs for life, so each endpoint's state is confined to one thread.
 */
public final class ProgressEngine implements AutoCloseable {

    private final List<ProgressLoop> loops;
    private final AtomicInteger next = new AtomicInteger();
    private final Scheduler scheduler;

    public ProgressEngine(String name, int threads, Supplier<IdleStrategy> idle) {
        this(name, threads, idle, Long.MAX_VALUE);
    }

    /**
     * @param parkLimitNanos the longest a loop sleeps whatever its idle strategy asks: the transport's timers
     *                       (liveness) run only when the loop does
     */
    public ProgressEngine(String name, int threads, Supplier<IdleStrategy> idle, long parkLimitNanos) {
        if (threads < 1) {
            throw new IllegalArgumentException("progress threads must be >= 1, got " + threads);
        }
        this.loops = IntStream.range(0, threads)
                .mapToObj(i -> new ProgressLoop(name + "-progress-" + i, idle.get(), parkLimitNanos))
                .toList();
        loops.forEach(ProgressLoop::start);
        this.scheduler = new LoopScheduler(loops);
    }

    /** The loop the next endpoint should live on. */
    public ProgressLoop nextLoop() {
        return loops.get(Math.floorMod(next.getAndIncrement(), loops.size()));
    }

    public List<ProgressLoop> loops() {
        return loops;
    }

    /**
     * The polling threads as a Reactor {@link Scheduler}: each worker stays on one loop (tasks of a worker run in
     * order), workers and direct tasks are spread over the loops round-robin; work runs between duty cycles. Only
     * for short, non-blocking work; anything heavier belongs on {@code publishOn(Schedulers.parallel())}.
     */
    public Scheduler scheduler() {
        return scheduler;
    }

    /** Busy time over wall time of all loops since start, 0..1. */
    public double busyRatio() {
        double busy = 0;
        double total = 0;
        for (ProgressLoop l : loops) {
            busy += l.busyNanos();
            total += l.uptimeNanos();
        }
        return total == 0 ? 0 : busy / total;
    }

    @Override
    public void close() {
        loops.forEach(l -> l.shutdown(5, TimeUnit.SECONDS));
    }
}
