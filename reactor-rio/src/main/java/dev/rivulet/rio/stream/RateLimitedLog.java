package dev.rivulet.rio.stream;

import org.slf4j.Logger;

/**
 * A warning that may repeat very often (a listener out of file descriptors retries every second; a flood of
 * strangers fails its handshakes by the thousand) is logged at most once per interval, with the count of those left
 * out, so the log shows the condition without being flooded by it. Thread-safe.
 */
final class RateLimitedLog {

    private final Logger log;
    private final long everyNanos;
    private long nextNanos = Long.MIN_VALUE;
    private boolean first = true;
    private int suppressed;

    RateLimitedLog(Logger log, long everyNanos) {
        this.log = log;
        this.everyNanos = everyNanos;
    }

    /** Logs {@code message} (with {@code cause}'s text, and its stack at debug level) unless one was logged lately. */
    synchronized void warn(String message, Throwable cause) {
        try {
            report(message, cause);
        } catch (Throwable t) {
            // Logging failed too (a process out of descriptors cannot load a class): the caller must go on anyway.
        }
    }

    private void report(String message, Throwable cause) {
        long now = System.nanoTime();
        if (!first && now - nextNanos < 0) {
            suppressed++;
            return;
        }
        first = false;
        nextNanos = now + everyNanos;
        String more = suppressed > 0 ? " (" + suppressed + " more like it since the last report)" : "";
        suppressed = 0;
        if (log.isDebugEnabled()) {
            log.warn("{}{}", message, more, cause);
        } else {
            log.warn("{}: {}{}", message, cause == null ? "" : String.valueOf(cause.getMessage()), more);
        }
    }
}
