package dev.rivulet.core.liveness;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.internal.Durations;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * How a connection notices a peer that is gone without saying so (a crash behind a firewall, a half-open TCP
 * connection, a stopped process, a partition) or that stopped reading:
 *
 * @param heartbeatInterval a side that sent nothing for this long sends a heartbeat, so its peer hears from a healthy
 *                          connection at least this often, idle or busy ({@code liveness.heartbeatInterval}, 5s)
 * @param peerTimeout       nothing at all received for this long ends the connection with
 *                          {@code ConnectionLostException} for every pending operation ({@code liveness.peerTimeout},
 *                          20s; more than twice the heartbeat interval)
 * @param writeTimeout      a write the peer does not take for this long (it stopped reading, or its host is gone)
 *                          ends the connection the same way ({@code liveness.writeTimeout}, 30s)
 */
public record LivenessSettings(Duration heartbeatInterval, Duration peerTimeout, Duration writeTimeout) {

    /** Every option key this record reads. */
    public static final List<String> OPTIONS = List.of("liveness.heartbeatInterval", "liveness.peerTimeout",
            "liveness.writeTimeout");

    public LivenessSettings {
        positive("heartbeatInterval", heartbeatInterval);
        positive("peerTimeout", peerTimeout);
        positive("writeTimeout", writeTimeout);
    }

    /**
     * Checks the settings against each other (done when a transport opens, so options can be given in any order).
     */
    public LivenessSettings validate() {
        if (peerTimeout.compareTo(heartbeatInterval.multipliedBy(2)) <= 0) {
            throw new InvalidRequestException("peerTimeout (" + peerTimeout + ") must be more than twice the "
                    + "heartbeatInterval (" + heartbeatInterval + "), or healthy idle connections would time out");
        }
        return this;
    }

    public static LivenessSettings defaults() {
        return new LivenessSettings(Duration.ofSeconds(5), Duration.ofSeconds(20), Duration.ofSeconds(30));
    }

    public LivenessSettings heartbeatInterval(Duration d) {
        return new LivenessSettings(d, peerTimeout, writeTimeout);
    }

    public LivenessSettings peerTimeout(Duration d) {
        return new LivenessSettings(heartbeatInterval, d, writeTimeout);
    }

    public LivenessSettings writeTimeout(Duration d) {
        return new LivenessSettings(heartbeatInterval, peerTimeout, d);
    }

    /**
     * These settings with the {@code liveness.*} entries of {@code options} applied (checked together, so the
     * three can be changed in any order); any other key under {@code liveness.} is refused.
     */
    public LivenessSettings withOptions(Map<String, String> options) {
        Duration hb = heartbeatInterval;
        Duration peer = peerTimeout;
        Duration write = writeTimeout;
        for (Map.Entry<String, String> e : options.entrySet()) {
            String k = e.getKey();
            if (!k.startsWith("liveness.")) {
                continue;
            }
            switch (k) {
                case "liveness.heartbeatInterval" -> hb = Durations.parse(k, e.getValue());
                case "liveness.peerTimeout" -> peer = Durations.parse(k, e.getValue());
                case "liveness.writeTimeout" -> write = Durations.parse(k, e.getValue());
                default -> throw new InvalidRequestException("unknown option '" + k + "'; known liveness options: "
                        + String.join(", ", OPTIONS));
            }
        }
        return new LivenessSettings(hb, peer, write);
    }

    private static void positive(String name, Duration d) {
        if (d == null || d.isZero() || d.isNegative()) {
            throw new InvalidRequestException(name + " must be positive, got " + d);
        }
    }
}
