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
}
