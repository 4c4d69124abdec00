package dev.rivulet.core.admission;

/**
 * Tells a peer that trickles a frame from one that is slow for a moment or stopped. Liveness counts a connection
 * alive as long as <em>something</em> arrives; a peer that sends one byte every few seconds of a frame it announced
 * at 16 MiB passes that test forever while this side holds the frame's memory. So while a frame is in progress, the
 * bytes that arrive in each window (the heartbeat interval) are compared with {@code security.minReceiveRate}:
 *
 * <ul>
 *   <li>Two consecutive windows below the rate, the second of them not empty, end the connection: a trickle.</li>
 *   <li>A window in which nothing at all arrived is left to liveness: a stopped or vanished peer is the peer
 *       timeout's business, and must not be reported sooner than that as a slow one.</li>
 *   <li>A window in which this side stopped reading (its own backpressure) does not count, nor does a frame that
 *       completed: only the same frame, in progress for the whole window, is judged.</li>
 * </ul>
 * A trickle is therefore cut within three windows. Confined to the connection's progress thread; a plain check per
 * poll on the loop's coarse clock.
 */
public final class TrickleDetector {

    private final long minBytesPerWindow;
    private final long windowNanos;
    private long windowStart;
    private long frame = -1;
    private long bytesAtStart;
    private boolean paused;
    private boolean lastWindowLow;

    /**
     * @param minBytesPerSecond {@code security.minReceiveRate}
     * @param windowNanos       how long each judged window lasts (the heartbeat interval)
     * @param now               the clock at the start
     */
    public TrickleDetector(long minBytesPerSecond, long windowNanos, long now) {
        this.windowNanos = windowNanos;
        this.minBytesPerWindow = Math.max(1, (long) Math.min(Long.MAX_VALUE / 2.0,
                minBytesPerSecond * (windowNanos / 1e9)));
        this.windowStart = now;
    }

    /** This side stopped reading for a while (its own backpressure): the current window is not judged. */
    public void pausedByUs() {
        paused = true;
    }

    /**
     * Whether the frame in progress is being trickled. {@code midFrame}: a frame is partly received;
     * {@code frameNumber} names it (frames completed so far); {@code frameBytes}: how much of it has arrived.
     */
    public boolean trickling(long now, boolean midFrame, long frameNumber, long frameBytes) {
        if (now - windowStart < windowNanos) {
            return false;
        }
        boolean judged = midFrame && !paused && frameNumber == frame;
        long moved = frameBytes - bytesAtStart;
        boolean trickle = false;
        if (!judged) {
            lastWindowLow = false;
        } else if (moved < minBytesPerWindow) {
            trickle = lastWindowLow && moved > 0;
            lastWindowLow = true;
        } else {
            lastWindowLow = false;
        }
        windowStart = now;
        frame = midFrame ? frameNumber : -1;
        bytesAtStart = frameBytes;
        paused = false;
        return trickle;
    }

    /** Bytes a frame must move per window (for error messages). */
    public long minBytesPerWindow() {
        return minBytesPerWindow;
    }
}
