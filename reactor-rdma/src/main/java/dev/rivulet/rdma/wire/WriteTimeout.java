package dev.rivulet.rdma.wire;

import dev.rivulet.core.engine.wire.WireLiveness;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.liveness.LivenessSettings;

import java.time.Duration;

/**
 * {@code liveness.writeTimeout} on an RDMA wire: an operation handed to the provider (a send, put, get, atomic or
 * rendezvous read; not a receive, which waits for the peer by design) that has not completed for that long means the
 * peer stopped making progress or stopped reading. The provider reports no progress inside one operation, so a large
 * transfer over a slow link is given a second per MiB it moves on top, rather than counting as stalled.
 */
public final class WriteTimeout {

    /** One second per MiB (1 MiB/s): the slowest link a large operation is allowed before it counts as stalled. */
    private static final long NANOS_PER_BYTE = 1_000_000_000L / (1 << 20);

    private final long timeoutNanos;
    private final long scanEveryNanos;
    private long lastScan;

    public WriteTimeout(LivenessSettings liveness) {
        this.timeoutNanos = liveness.writeTimeout().toNanos();
        this.scanEveryNanos = Math.max(1_000_000L, timeoutNanos / 8);
    }

    /** When an operation moving {@code bytes}, posted at {@code now} (the loop's coarse clock), must have completed. */
    public long dueBy(long now, long bytes) {
        return now + timeoutNanos + bytes * NANOS_PER_BYTE;
    }

    /**
     * Whether a wire that must look at every operation to find a late one should look now: a few times per timeout,
     * not on every poll.
     */
    public boolean scanDue(long now) {
        if (now - lastScan < scanEveryNanos) {
            return false;
        }
        lastScan = now;
        return true;
    }

    /** What breaks the connection when an operation to {@code remoteAddress} is past its time. */
    public ConnectionLostException stalled(String remoteAddress, String provider) {
        return new ConnectionLostException("an operation to " + remoteAddress + " has not completed within "
                + WireLiveness.text(Duration.ofNanos(timeoutNanos)) + " plus a second per MiB it moves (liveness.writeTimeout)",
                provider, 0, null, null);
    }
}
