package dev.rivulet.core.resume;

import dev.rivulet.core.error.InvalidRequestException;

import java.time.Duration;
import java.util.Objects;

/**
 * How a resumable session behaves, immutable like the clients it configures: each setter returns a new spec.
 *
 * <ul>
 *   <li>{@code sessionTimeout} (30 s): how long a session outlives its connection; the client keeps connecting again
 *       that long, the server keeps the session that long, then it ends with
 *       {@link dev.rivulet.core.error.SessionExpiredException}.</li>
 *   <li>{@code window} (256 messages): how many messages this side lets the peer send beyond what this side's
 *       application has taken. It bounds both the peer's replay memory (what it keeps until acknowledged) and this
 *       side's queue of messages not yet taken; likewise, how many of the peer's operations on this side's windows
 *       may be unanswered, and so how many answers this side keeps for them.</li>
 *   <li>{@code reconnectBackoff} (10 ms doubling to 1 s, client side): the waits between attempts to connect
 *       again.</li>
 * </ul>
 */
public final class ResumeSpec {

    private static final ResumeSpec DEFAULTS = new ResumeSpec(Duration.ofSeconds(30), 256, Duration.ofMillis(10),
            Duration.ofSeconds(1));

    private final Duration sessionTimeout;
    private final int window;
    private final Duration minBackoff;
    private final Duration maxBackoff;

    private ResumeSpec(Duration sessionTimeout, int window, Duration minBackoff, Duration maxBackoff) {
        this.sessionTimeout = sessionTimeout;
        this.window = window;
        this.minBackoff = minBackoff;
        this.maxBackoff = maxBackoff;
    }

    public static ResumeSpec defaults() {
        return DEFAULTS;
    }

    /** How long the session outlives a lost connection. */
    public ResumeSpec sessionTimeout(Duration timeout) {
        return new ResumeSpec(positive(timeout, "sessionTimeout"), window, minBackoff, maxBackoff);
    }

    /** How many messages the peer may send beyond what this side's application has taken (1 to 65536). */
    public ResumeSpec window(int messages) {
        if (messages < 1 || messages > 65_536) {
            throw new InvalidRequestException("window must be 1..65536 messages, got " + messages);
        }
        return new ResumeSpec(sessionTimeout, messages, minBackoff, maxBackoff);
    }

    /** The first and the longest wait between attempts to connect again (exponential, with jitter). */
    public ResumeSpec reconnectBackoff(Duration first, Duration longest) {
        positive(first, "first backoff");
        if (positive(longest, "longest backoff").compareTo(first) < 0) {
            throw new InvalidRequestException("the longest backoff " + longest + " is shorter than the first " + first);
        }
        return new ResumeSpec(sessionTimeout, window, first, longest);
    }

    private static Duration positive(Duration d, String what) {
        if (d == null || d.isZero() || d.isNegative()) {
            throw new InvalidRequestException(what + " must be positive, got " + d);
        }
        return d;
    }

    public Duration sessionTimeout() {
        return sessionTimeout;
    }

    public int window() {
        return window;
    }

    public Duration minBackoff() {
        return minBackoff;
    }

    public Duration maxBackoff() {
        return maxBackoff;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ResumeSpec s && s.sessionTimeout.equals(sessionTimeout) && s.window == window
                && s.minBackoff.equals(minBackoff) && s.maxBackoff.equals(maxBackoff);
    }

    @Override
    public int hashCode() {
        return Objects.hash(sessionTimeout, window, minBackoff, maxBackoff);
    }

    @Override
    public String toString() {
        return "ResumeSpec[sessionTimeout=" + sessionTimeout + ", window=" + window + ", reconnectBackoff="
                + minBackoff + ".." + maxBackoff + "]";
    }
}
