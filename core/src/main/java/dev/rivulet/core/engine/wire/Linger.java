package dev.rivulet.core.engine.wire;

import dev.rivulet.core.loop.Pollable;
import dev.rivulet.core.loop.ProgressLoop;

import java.time.Duration;

/**
 * The drain a closed wire keeps up after the engine let go of it: its loop polls {@link Step#poll} until the wire
 * {@link #stop}s it (the peer finished its side, everything is released), and the step learns when the deadline
 * passed, so that a peer that never finishes cannot keep a connection's buffers, pins and descriptors forever.
 * Loop thread only.
 */
public final class Linger {

    /** One poll of a lingering wire. */
    @FunctionalInterface
    public interface Step {
        /**
         * Drains what is left; {@code overdue} once the deadline passed (the wire then forces its end). Returns the
         * work done, as a {@link Pollable} does.
         */
        int poll(boolean overdue);
    }

    private final ProgressLoop loop;
    private final long withinNanos;
    private final Pollable pollable;
    private long since;
    private boolean registered;

    /**
     * @param loop   the wire's loop
     * @param within how long the peer has to finish its side (usually the peer timeout)
     * @param step   the wire's drain
     */
    public Linger(ProgressLoop loop, Duration within, Step step) {
        this.loop = loop;
        this.withinNanos = within.toNanos();
        this.pollable = () -> step.poll(overdue());
    }

    /**
     * Starts lingering on the loop, from now. False when called off the loop (the loop has stopped: the transport is
     * going), where there is nothing to linger on and the wire releases at once.
     */
    public boolean start() {
        if (!loop.inLoop()) {
            return false;
        }
        since = loop.coarseNanos();
        if (!registered) {
            registered = true;
            loop.register(pollable);
        }
        return true;
    }

    /** Stops lingering (the wire is released); nothing when it never started or runs off the loop. */
    public void stop() {
        if (registered && loop.inLoop()) {
            registered = false;
            loop.deregister(pollable);
        }
    }

    /** Whether the deadline passed since {@link #start}. */
    public boolean overdue() {
        return loop.coarseNanos() - since > withinNanos;
    }
}
