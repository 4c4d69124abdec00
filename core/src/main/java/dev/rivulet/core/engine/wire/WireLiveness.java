package dev.rivulet.core.engine.wire;

import dev.rivulet.core.engine.LivenessMonitor;
import dev.rivulet.core.error.ConnectionLostException;
import org.jspecify.annotations.Nullable;

import java.time.Duration;

/**
 * A wire's liveness verdicts ({@link LivenessMonitor#check}) turned into what it does: a heartbeat sent in its own
 * medium, or the one error a silent or a non-reading peer ends the connection with, named after the setting that
 * ran out, so that every transport says it the same way.
 */
public final class WireLiveness {

    /** How a wire sends a heartbeat in its medium. */
    @FunctionalInterface
    public interface Heartbeat {
        void send();
    }

    private final LivenessMonitor monitor;
    private final String remoteAddress;
    private final Heartbeat heartbeat;

    /**
     * @param monitor       the wire's liveness bookkeeping (fed by its sends and arrivals)
     * @param remoteAddress the peer, for the errors
     * @param heartbeat     what sends a heartbeat when nothing was sent for the heartbeat interval
     */
    public WireLiveness(LivenessMonitor monitor, String remoteAddress, Heartbeat heartbeat) {
        this.monitor = monitor;
        this.remoteAddress = remoteAddress;
        this.heartbeat = heartbeat;
    }

    public LivenessMonitor monitor() {
        return monitor;
    }

    /**
     * Runs the check at {@code now} (the loop's coarse clock): sends a heartbeat when one is due, and returns the
     * error that ends the connection when the peer was silent for the peer timeout or has not taken a write for the
     * write timeout; null while it is alive.
     */
    public @Nullable ConnectionLostException check(long now) {
        return switch (monitor.check(now)) {
            case LivenessMonitor.SEND_HEARTBEAT -> {
                heartbeat.send();
                yield null;
            }
            case LivenessMonitor.PEER_TIMEOUT -> peerSilent();
            case LivenessMonitor.WRITE_TIMEOUT -> peerNotReading();
            default -> null;
        };
    }

    /** Nothing heard from the peer for the peer timeout. */
    public ConnectionLostException peerSilent() {
        return new ConnectionLostException("no sign of life from " + remoteAddress + " for "
                + text(monitor.settings().peerTimeout()) + " (liveness.peerTimeout)");
    }

    /** The peer has not taken a write for the write timeout. */
    public ConnectionLostException peerNotReading() {
        return new ConnectionLostException("peer " + remoteAddress + " has not taken a write for "
                + text(monitor.settings().writeTimeout()) + " (liveness.writeTimeout)");
    }

    /** {@code 2s}, {@code 1500ms}: a setting as a user wrote it. */
    public static String text(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }
}
