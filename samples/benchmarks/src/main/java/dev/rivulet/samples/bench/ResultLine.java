package dev.rivulet.samples.bench;

import java.util.Arrays;
import java.util.Locale;

/** RESULT lines that the bench nodes print alike and their CLIs parse with {@link Results#parse}. */
public final class ResultLine {

    private ResultLine() {
    }

    /**
     * A ping-pong measurement: median, p99 and minimum round trip of {@code rtt} (nanoseconds, sorted in place) and
     * half the median as one-way latency; {@code where} is the node's "key=value" for what carried it.
     */
    public static String pingpong(String impl, String where, int size, long[] rtt) {
        Arrays.sort(rtt);
        int count = rtt.length;
        double med = rtt[count / 2] / 1e3;
        return String.format(Locale.ROOT, "RESULT impl=%s mode=pingpong %s size=%d count=%d "
                        + "rtt_median_us=%.3f rtt_p99_us=%.3f rtt_min_us=%.3f oneway_median_us=%.3f", impl,
                where, size, count, med, rtt[(int) (count * 0.99)] / 1e3, rtt[0] / 1e3, med / 2);
    }

    /**
     * A streaming (or put, or copy) measurement of {@code count} messages of {@code size} bytes in {@code seconds}:
     * rates and the Java heap bytes per message each JVM allocated ({@code serverAlloc} negative where there is no
     * receiving JVM to ask).
     */
    public static String rate(String impl, String mode, String where, int size, long count, double seconds,
                              long clientAlloc, long serverAlloc) {
        String line = String.format(Locale.ROOT, "RESULT impl=%s mode=%s %s size=%d count=%d seconds=%.6f "
                        + "msgs_per_s=%.1f mb_per_s=%.3f client_alloc_b_per_msg=%.3f", impl, mode, where, size, count,
                seconds, count / seconds, count * (double) size / seconds / 1e6, clientAlloc / (double) count);
        return serverAlloc < 0 ? line
                : line + String.format(Locale.ROOT, " server_alloc_b_per_msg=%.3f", serverAlloc / (double) count);
    }

    /**
     * The heap bytes per message each JVM allocated beyond what a phase allocates once (its publisher, futures,
     * the ack): the difference between a phase of {@code count} messages and one of {@code warmCount} (the untimed
     * warm-up before it), per message of difference. Appended to a {@link #rate} line.
     */
    public static String allocationSlope(long warmCount, long warmClient, long warmServer, long count, long client,
                                         long server) {
        double n = count - warmCount;
        return String.format(Locale.ROOT, " client_alloc_slope_b_per_msg=%.3f server_alloc_slope_b_per_msg=%.3f",
                (client - warmClient) / n, (server - warmServer) / n);
    }
}
