package dev.rivulet.rio.stream;

import dev.rivulet.core.liveness.LivenessSettings;

import java.time.Duration;

/**
 * The kernel's share of noticing a dead peer, set on every stream socket: TCP keepalive timed so that a connection
 * whose peer's host is gone is dropped after about {@code peerTimeout} even when Rivulet's own heartbeats cannot run
 * (first probe after a heartbeat interval of silence, then one per interval), and {@code TCP_USER_TIMEOUT}: data
 * unacknowledged for {@code writeTimeout} drops the connection.
 *
 * @param keepIdleSeconds     {@code TCP_KEEPIDLE}
 * @param keepIntervalSeconds {@code TCP_KEEPINTVL}
 * @param keepCount           {@code TCP_KEEPCNT}
 * @param userTimeoutMillis   {@code TCP_USER_TIMEOUT}
 */
public record SocketTuning(int keepIdleSeconds, int keepIntervalSeconds, int keepCount, int userTimeoutMillis) {

    public static SocketTuning from(LivenessSettings liveness) {
        int interval = seconds(liveness.heartbeatInterval());
        int peer = seconds(liveness.peerTimeout());
        int count = Math.clamp((peer - interval + interval - 1) / interval, 1, 127); // TCP_KEEPCNT tops out at 127
        long write = liveness.writeTimeout().toMillis();
        return new SocketTuning(interval, interval, count, (int) Math.max(1, Math.min(Integer.MAX_VALUE, write)));
    }

    /** Whole seconds, at least 1 (the kernel counts keepalive in seconds). */
    private static int seconds(Duration d) {
        long ms = d.toMillis();
        return (int) Math.max(1, Math.min(Short.MAX_VALUE, (ms + 999) / 1000));
    }
}
