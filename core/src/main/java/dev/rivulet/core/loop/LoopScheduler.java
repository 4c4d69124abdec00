package dev.rivulet.core.loop;

import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Every progress loop of a transport as one Reactor {@link Scheduler}. A worker is pinned to one loop, so the tasks
 * it is given run in order on one thread; workers and plain tasks go to the loops round-robin. Delayed and periodic
 * tasks are refused like any executor-backed scheduler's: a polling thread has no timer.
 */
final class LoopScheduler implements Scheduler {

    private final List<Scheduler> perLoop;
    private final AtomicInteger next = new AtomicInteger();

    LoopScheduler(List<ProgressLoop> loops) {
        this.perLoop = loops.stream().map(l -> Schedulers.fromExecutor(l)).toList();
    }

    private Scheduler nextLoop() {
        return perLoop.get(Math.floorMod(next.getAndIncrement(), perLoop.size()));
    }

    @Override
    public Disposable schedule(Runnable task) {
        return nextLoop().schedule(task);
    }

    @Override
    public Worker createWorker() {
        return nextLoop().createWorker();
    }

    @Override
    public void dispose() {
        perLoop.forEach(Scheduler::dispose);
    }

    @Override
    public boolean isDisposed() {
        return perLoop.stream().allMatch(Scheduler::isDisposed);
    }

    @Override
    public void init() {
        perLoop.forEach(Scheduler::init);
    }
}
