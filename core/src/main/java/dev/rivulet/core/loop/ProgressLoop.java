package dev.rivulet.core.loop;

import dev.rivulet.core.progress.IdleStrategy;
import org.jctools.queues.atomic.MpscUnboundedAtomicArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One dedicated polling thread: the single issuer for the native queues it owns.
 *
 * <p>Each duty cycle runs the tasks other threads submitted (through a lock-free MPSC queue, so producers never
 * block and native calls on one queue are never made concurrently), then polls every registered {@link Pollable},
 * then hands the work count to the {@link IdleStrategy}. Reactive signals are delivered on this thread; user code
 * that does real work belongs on {@code publishOn}.
 *
 * <p>Wake-ups: before sleeping the loop publishes {@code parked = true} and polls once more; a submitter offers its
 * task first, fences, and reads {@code parked} second. Each side orders its store before its load (a volatile store
 * on the loop's side, a full fence on the submitter's), so one of them always sees the other and no submission can
 * be stranded while the loop sleeps. A submitter that finds {@code parked} set clears it
 * with a compare-and-set and only the one that succeeds signals the {@link Waiter}: the others' tasks are run by
 * the same wake-up, so a batch submitted to a sleeping loop costs one signal (an eventfd write, an unpark), not one
 * per task.
 *
 * <p>Faults: whatever a task, a pollable, the idle strategy or the waiter throws ({@code Error}s included) is caught
 * and reported ({@link LoopFaults}), and the loop goes on with the next task or pollable: one connection's failure
 * must never stop the thread every other connection of the loop depends on. Ending the connection concerned is the
 * business of the code that knows which one it is ({@code EndpointEngine.poll} closes its endpoint; a completion
 * queue shared by several connections ends the one whose completion handler threw).
 */
public final class ProgressLoop implements Executor {

    private static final Logger log = LoggerFactory.getLogger(ProgressLoop.class);

    private final MpscUnboundedAtomicArrayQueue<Runnable> tasks = new MpscUnboundedAtomicArrayQueue<>(1024);
    private final ArrayList<Pollable> pollables = new ArrayList<>();
    private final IdleStrategy idle;
    private final Thread thread;
    private final LoopFaults faults;
    private volatile Waiter waiter = Waiter.PARK;
    private volatile boolean parked;
    private volatile boolean running = true;
    /** Set once the thread took its last look at the queue: a task offered later is rejected by its submitter. */
    private volatile boolean terminated;
    private final Object leftovers = new Object();
    /** Idle cycles between clock reads (see {@link #run}). */
    private static final int CLOCK_EVERY = 8;
    private static final VarHandle PARKED;

    static {
        try {
            PARKED = MethodHandles.lookup().findVarHandle(ProgressLoop.class, "parked", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private volatile long busyNanos;
    private long clockStamp;
    private final long startNanos = System.nanoTime();
    private final IdleStrategy.Parker parker = this::park;
    /** The longest one sleep lasts, whatever the idle strategy asks (see {@link ProgressEngine}). */
    private final long parkLimit;

    ProgressLoop(String name, IdleStrategy idle, long parkLimitNanos) {
        if (parkLimitNanos <= 0) {
            throw new IllegalArgumentException("park limit must be positive: " + parkLimitNanos);
        }
        this.idle = idle;
        this.parkLimit = parkLimitNanos;
        this.thread = new PollingThread(name, this::run);
        this.faults = new LoopFaults(log, name);
    }

    void start() {
        thread.start();
    }

    /** Runs {@code task} on this loop's thread, after the tasks submitted before it. */
    @Override
    public void execute(Runnable task) {
        if (!running) {
            throw new RejectedExecutionException("progress loop " + thread.getName() + " is shut down");
        }
        tasks.offer(task);
        wake();
        if (terminated) {
            // The loop stopped between the check above and the offer, after its last look at the queue: nothing
            // would run the task, and a subscriber waiting on it would wait forever.
            rejectLeftovers();
        }
    }

    /** Ends the loop's current sleep, e.g. when a peer in the same JVM delivered something to a wire it polls. */
    public void wake() {
        // The fence orders what the caller published before (a task: the queue stores its element with a release
        // store only, as JCTools' offer does; a message in a wire) before the read of parked: without it the read
        // may pass the store on its way to memory (x86 reorders a store and a later load), the loop publish parked
        // and look at the queue, and each side see the other's old value: the task stranded while the loop sleeps.
        VarHandle.fullFence();
        // Only the caller that takes the flag signals; the others find the loop signalled already (or awake) and
        // skip the system call, which would only end its next sleep at once: one wake-up per sleep, however many
        // tasks a batch submits while it lasts.
        if (parked && PARKED.compareAndSet(this, true, false)) {
            waiter.wake(thread);
        }
    }

    /** Adds a pollable; effective from the next cycle. */
    public void register(Pollable p) {
        if (inLoop()) {
            pollables.add(p);
        } else {
            execute(() -> pollables.add(p));
        }
    }

    /** Removes a pollable; must be called on the loop thread (it usually is: closes run there). */
    public void deregister(Pollable p) {
        if (inLoop()) {
            pollables.remove(p);
        } else {
            execute(() -> pollables.remove(p));
        }
    }

    /** Lets a backend sleep on its own wait object instead of parking. */
    public void waiter(Waiter w) {
        this.waiter = w;
    }

    public boolean inLoop() {
        return Thread.currentThread() == thread;
    }

    public String name() {
        return thread.getName();
    }

    public boolean isRunning() {
        return running;
    }

    /**
     * Nanoseconds spent in cycles that found work, since start (each may include up to seven idle cycles before
     * it: the loop does not read the clock on every idle cycle).
     */
    public long busyNanos() {
        return busyNanos;
    }

    /**
     * A clock reading at most a few idle cycles old, without reading the clock: the loop stamps it after every busy
     * cycle, after every sleep and every few idle cycles, and a sleep lasts at most the idle strategy's longest
     * park (and never longer than the loop's park limit). For timeouts of milliseconds and more (liveness), not for measuring. Loop thread only.
     */
    public long coarseNanos() {
        return clockStamp;
    }

    public long uptimeNanos() {
        return System.nanoTime() - startNanos;
    }

    /** Submitted tasks not yet run. */
    public int backlog() {
        return tasks.size();
    }

    void shutdown(long timeout, TimeUnit unit) {
        running = false;
        waiter.wake(thread);
        if (!inLoop()) {
            try {
                thread.join(unit.toMillis(timeout));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        // Busy time without a clock read per cycle: System.nanoTime costs about as much as an empty poll (22 ns here),
        // and a busy-polling loop read it twice per cycle. The clock is read at the end of every cycle that found
        // work, after every park, and every CLOCK_EVERY idle cycles in between; a cycle's busy time runs from the
        // latest of those, so it may include up to CLOCK_EVERY - 1 idle cycles (spins or yields) before it.
        clockStamp = System.nanoTime();
        int untimed = 0;
        while (running) {
            int work = cycle();
            if (work > 0) {
                long now = System.nanoTime();
                busyNanos += now - clockStamp;
                clockStamp = now;
                untimed = 0;
            } else if (++untimed == CLOCK_EVERY) {
                untimed = 0;
                clockStamp = System.nanoTime();
            }
            try {
                idle.idle(work, parker);
            } catch (Throwable e) {
                parked = false;
                faults.report("idling failed", e); // a waiter's system call, a strategy's bug: poll on regardless
            }
        }
        // Run what was submitted before shutdown so closes and their signals still complete.
        for (int i = 0; i < 16 && cycle() > 0; i++) {
            Thread.onSpinWait();
        }
        terminated = true;
        rejectLeftovers();
    }

    /**
     * Once the thread is gone, takes what is still queued (one caller at a time, so the queue keeps a single
     * consumer): a {@link RejectableTask} hears it will not run, anything else is dropped as the loop is closed.
     */
    private void rejectLeftovers() {
        synchronized (leftovers) {
            Runnable t;
            while ((t = tasks.poll()) != null) {
                if (t instanceof RejectableTask r) {
                    try {
                        r.rejected();
                    } catch (Throwable e) {
                        faults.report("rejecting a task failed", e);
                    }
                }
            }
        }
    }

    private int cycle() {
        int work = 0;
        Runnable t;
        while ((t = tasks.relaxedPoll()) != null) {
            work++;
            try {
                t.run();
            } catch (Throwable e) {
                faults.report("a task failed", e);
            }
        }
        for (int i = 0; i < pollables.size(); i++) {
            try {
                work += pollables.get(i).poll();
            } catch (Throwable e) {
                faults.report("a poll failed", e);
            }
        }
        return work;
    }

    private void park(long nanos) {
        parked = true;
        try {
            if (cycle() == 0 && running) {
                waiter.await(thread, Math.min(nanos, parkLimit));
            }
        } finally {
            parked = false;
            clockStamp = System.nanoTime(); // time asleep is not busy time
        }
    }
}
