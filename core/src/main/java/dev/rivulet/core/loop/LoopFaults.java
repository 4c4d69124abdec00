package dev.rivulet.core.loop;

import org.slf4j.Logger;

/**
 * Reports what was thrown on a progress loop and caught there. Reporting never throws: it runs on error paths, often
 * when the process is short of what logging needs itself (a descriptor to load a logging class with, heap), and what
 * the loop does after the report (end the connection concerned, poll the rest) matters more than the report. And it
 * never floods: something that throws on every cycle of a polling loop is reported at most once a second, with the
 * count of those left out. Loop thread only.
 */
public final class LoopFaults {

    private static final long EVERY_NANOS = 1_000_000_000L;

    private final Logger log;
    private final String loop;
    private long nextNanos = System.nanoTime();
    private int suppressed;

    public LoopFaults(Logger log, String loop) {
        this.log = log;
        this.loop = loop;
    }

    /** Logs {@code what} happened on this loop, with {@code error}, unless a report went out less than a second ago. */
    public void report(String what, Throwable error) {
        try {
            long now = System.nanoTime();
            if (now - nextNanos < 0) {
                suppressed++;
                return;
            }
            nextNanos = now + EVERY_NANOS;
            int left = suppressed;
            suppressed = 0;
            if (left == 0) {
                log.error("{} on progress loop {}", what, loop, error);
            } else {
                log.error("{} on progress loop {} ({} more failures in the last second not shown)", what, loop, left,
                        error);
            }
        } catch (Throwable t) {
            // Logging failed too: nothing to report it with, and the loop must go on.
        }
    }
}
