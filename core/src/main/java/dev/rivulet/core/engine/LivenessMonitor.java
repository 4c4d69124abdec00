package dev.rivulet.core.engine;

import dev.rivulet.core.liveness.LivenessSettings;

/**
 * One connection's liveness bookkeeping, kept by its wire on its progress thread. The hot path costs a plain store:
 * {@link #heard()} on every arrival, {@link #sent()} on every frame put on the wire, {@link #writeStarted}/
 * {@link #writeDone()} around a write the wire waits for.
 *
 * <p>A side sends a heartbeat when it has <em>sent</em> nothing for a heartbeat interval, so that its peer always
 * hears from it; the peer timeout counts how long nothing was <em>heard</em>. (Heartbeats driven by silence heard
 * would fail a bulk transfer over a slow link: the side receiving it hears plenty and says nothing, while the sender's
 * heartbeat waits behind its own data and its peer's answer never comes in time.)
 * {@link #check(long)} runs every poll with the loop's coarse clock ({@code ProgressLoop.coarseNanos()}, no clock
 * read of its own) and does real work only a few times per heartbeat interval.
 */
public final class LivenessMonitor {

    /** Nothing to do. */
    public static final int OK = 0;
    /** Send a heartbeat now: nothing was sent for a heartbeat interval. */
    public static final int SEND_HEARTBEAT = 1;
    /** Nothing was heard for the peer timeout: the connection is lost. */
    public static final int PEER_TIMEOUT = 2;
    /** A write has waited longer than the write timeout: the peer stopped reading or is gone. */
    public static final int WRITE_TIMEOUT = 3;

    private static final long NONE = Long.MIN_VALUE;

    private final long heartbeatNanos;
    private final long peerTimeoutNanos;
    private final long writeTimeoutNanos;
    private final long checkEveryNanos;
    private final LivenessSettings settings;
    private boolean heardSinceCheck;
    private boolean sentSinceCheck;
    private long lastHeard;
    private long lastSent;
    private long lastCheck;
    private long writeSince = NONE;

    public LivenessMonitor(LivenessSettings settings, long now) {
        this.settings = settings;
        this.heartbeatNanos = settings.heartbeatInterval().toNanos();
        this.peerTimeoutNanos = settings.peerTimeout().toNanos();
        this.writeTimeoutNanos = settings.writeTimeout().toNanos();
        this.checkEveryNanos = Math.max(1_000_000L, Math.min(heartbeatNanos, writeTimeoutNanos) / 8);
        this.lastHeard = now;
        this.lastSent = now;
        this.lastCheck = now;
    }

    public LivenessSettings settings() {
        return settings;
    }

    /** Something arrived from the peer. */
    public void heard() {
        heardSinceCheck = true;
    }

    /** Something left for the peer (any frame: data, credits, answers, a heartbeat). */
    public void sent() {
        sentSinceCheck = true;
    }

    /** A write the wire waits for was posted (when none was outstanding). */
    public void writeStarted(long now) {
        if (writeSince == NONE) {
            writeSince = now;
        }
    }

    /** The outstanding write finished; {@code stillWriting} when the next one is already posted. */
    public void writeProgressed(long now, boolean stillWriting) {
        writeSince = stillWriting ? now : NONE;
    }

    /** The outstanding writes are done. */
    public void writeDone() {
        writeSince = NONE;
    }

    /** What the wire must do now; see the constants. */
    public int check(long now) {
        if (now - lastCheck < checkEveryNanos) {
            return OK;
        }
        lastCheck = now;
        if (heardSinceCheck) {
            heardSinceCheck = false;
            lastHeard = now;
        }
        if (sentSinceCheck) {
            sentSinceCheck = false;
            lastSent = now;
        }
        if (writeSince != NONE && now - writeSince > writeTimeoutNanos) {
            return WRITE_TIMEOUT;
        }
        long silent = now - lastHeard;
        if (silent > peerTimeoutNanos) {
            return PEER_TIMEOUT;
        }
        if (now - lastSent > heartbeatNanos) {
            lastSent = now; // the heartbeat about to go out counts as sent
            return SEND_HEARTBEAT;
        }
        return OK;
    }

    /** How long nothing has been heard, as of the last check (for error messages). */
    public long silentNanos(long now) {
        return now - lastHeard;
    }
}
