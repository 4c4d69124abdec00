package dev.rivulet.core.resume;

/**
 * How far one side of a session got that its peer must hear of (what its application took, the answers that
 * arrived), and when to tell it: at once each time a quarter of the window was reached since the last
 * acknowledgement, otherwise soon after (the session schedules that), so the peer can drop what it kept. Guarded by
 * the session's lock.
 */
final class AckCounter {

    private final int every;
    /** The last position reached. */
    private long reached;
    /** The last position acknowledged to the peer. */
    private long acknowledged;

    AckCounter(int window) {
        this.every = Math.max(1, window / 4);
    }

    long reached() {
        return reached;
    }

    long acknowledged() {
        return acknowledged;
    }

    void reach(long position) {
        reached = position;
    }

    /** Whether a quarter of the window was reached since the last acknowledgement: the peer should hear now. */
    boolean ackNow() {
        return reached - acknowledged >= every;
    }

    /** Whether something reached was not acknowledged yet. */
    boolean due() {
        return reached > acknowledged;
    }

    /** Marks everything reached as acknowledged, returning the position to acknowledge. */
    long acknowledge() {
        acknowledged = reached;
        return reached;
    }
}
