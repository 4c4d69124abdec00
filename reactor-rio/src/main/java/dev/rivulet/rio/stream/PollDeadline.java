package dev.rivulet.rio.stream;

/**
 * Waiting for a socket with {@code poll(2)} or {@code WSAPoll} until a deadline on the {@link System#nanoTime()}
 * clock, as a blocking step of connection set-up (a non-blocking connect, a handshake read or write) does: each poll
 * gets what is left of the time, rounded up to whole milliseconds and at least one, so that the last sliver of the
 * deadline is waited for rather than spun on with zero-timeout polls.
 */
public final class PollDeadline {

    /** One poll of one socket for at most {@code timeoutMillis}: non-zero when it reported something. */
    @FunctionalInterface
    public interface Poll {
        int poll(int timeoutMillis);
    }

    private PollDeadline() {
    }

    /**
     * Polls until {@code poll} reports the socket ready (or an error or hang-up pending, which the caller's next call
     * on the socket reports): {@code true}; or until {@code deadlineNanos} has passed: {@code false}.
     */
    public static boolean await(long deadlineNanos, Poll poll) {
        while (true) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, (left + 999_999) / 1_000_000));
            if (poll.poll(millis) != 0) {
                return true;
            }
        }
    }
}
