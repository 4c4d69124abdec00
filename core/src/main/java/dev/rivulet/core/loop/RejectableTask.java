package dev.rivulet.core.loop;

/**
 * A task that must hear that it will never run rather than be dropped: an operation whose subscriber waits for a
 * signal. A {@link ProgressLoop} that stopped calls {@link #rejected} instead of {@link #run} for each such task
 * still in its queue, including one submitted while it was stopping.
 */
public interface RejectableTask extends Runnable {

    /** Called instead of {@link #run}, once, on whichever thread found the task left over; must not block. */
    void rejected();
}
