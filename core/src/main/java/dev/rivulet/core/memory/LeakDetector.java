package dev.rivulet.core.memory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Finds buffers that were never released, and buffers used after their release. Off by default (it records a stack
 * trace per allocation); tests turn it on with {@link #enable()} and check with {@link #awaitNoLeaks(Duration)},
 * which waits because the last release of a sent buffer happens on the progress thread when the completion arrives.
 * The system property {@code rivulet.leakDetection} ({@code simple}, {@code paranoid}, or {@code true} for
 * paranoid) turns it on from the command line.
 *
 * <p>Independent of the detector, every pool keeps an exact count of outstanding buffers
 * ({@link BufferPool#outstanding()}), every buffer refuses access to its bytes once released, and a buffer lent by
 * {@code receive()} refuses access from any thread but the one it was lent to and after its {@code onNext} (see
 * {@link Buffer}).
 */
public final class LeakDetector {

    /** How much the detector does. */
    public enum Level {
        /** Nothing beyond the pools' counts and the released-buffer check. */
        DISABLED,
        /** Records where each unreleased buffer was allocated. */
        SIMPLE,
        /**
         * As {@link #SIMPLE}, and pools never reuse a released buffer's object, nor receivers a lent buffer's, so a
         * reference kept past release fails on every use instead of silently reading a later message that reused
         * the object.
         */
        PARANOID
    }

    private static volatile Level level = parse(System.getProperty("rivulet.leakDetection", "false"));
    private static volatile boolean enabled = level != Level.DISABLED;
    private static final Map<Buffer, Throwable> LIVE = new ConcurrentHashMap<>();
    private static final AtomicLong LEAKED_TOTAL = new AtomicLong();

    private LeakDetector() {
    }

    /** Turns on {@link Level#PARANOID} detection: what tests want. */
    public static void enable() {
        enable(Level.PARANOID);
    }

    public static void enable(Level l) {
        level = l;
        enabled = l != Level.DISABLED;
    }

    public static void disable() {
        enable(Level.DISABLED);
        LIVE.clear();
    }

    public static Level level() {
        return level;
    }

    static boolean isParanoid() {
        return level == Level.PARANOID;
    }

    private static Level parse(String v) {
        return switch (v.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "true", "paranoid" -> Level.PARANOID;
            case "simple" -> Level.SIMPLE;
            default -> Level.DISABLED;
        };
    }

    public static boolean isEnabled() {
        return enabled;
    }

    /** Forgets everything tracked so far (start of a test). */
    public static void reset() {
        LIVE.clear();
    }

    /** Buffers allocated while the detector was on and not yet released. */
    public static int outstanding() {
        return LIVE.size();
    }

    /** Descriptions of the unreleased buffers with the stack of their allocation. */
    public static List<String> report() {
        List<String> out = new ArrayList<>();
        LIVE.forEach((b, where) -> out.add(b + " allocated at " + stack(where)));
        return out;
    }

    /**
     * Waits up to {@code timeout} for every tracked buffer to be released; throws {@link AssertionError} with the
     * allocation stacks of the ones still held.
     */
    public static void awaitNoLeaks(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!LIVE.isEmpty() && System.nanoTime() < deadline) {
            LockSupport.parkNanos(1_000_000);
        }
        if (!LIVE.isEmpty()) {
            LEAKED_TOTAL.addAndGet(LIVE.size());
            List<String> r = report();
            throw new AssertionError(r.size() + " buffer(s) leaked:\n" + String.join("\n", r.subList(0,
                    Math.min(5, r.size()))));
        }
    }

    static void allocated(Buffer b) {
        if (enabled) {
            Throwable where = new Throwable("allocation");
            b.leakRecord = where;
            LIVE.put(b, where);
        }
    }

    static void released(Buffer b) {
        if (b.leakRecord != null) {
            LIVE.remove(b);
            b.leakRecord = null;
        }
    }

    private static String stack(Throwable t) {
        StringBuilder sb = new StringBuilder();
        StackTraceElement[] st = t.getStackTrace();
        for (int i = 0; i < Math.min(12, st.length); i++) {
            sb.append("\n\tat ").append(st[i]);
        }
        return sb.toString();
    }
}
