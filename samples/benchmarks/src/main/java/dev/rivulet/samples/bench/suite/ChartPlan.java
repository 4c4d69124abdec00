package dev.rivulet.samples.bench.suite;

import java.util.List;

/** Which charts a transport's results get, and which recorded runs each series plots. */
sealed interface ChartPlan {

    /**
     * Throughput against message size (one line per {@link Line}) and ping-pong round trips (one bar per
     * {@link Bar}), from a side-by-side CLI's results.
     */
    record Transport(List<Line> throughput, List<Bar> latency) implements ChartPlan {
    }

    /** The local transport's JMH streaming scores and allocation per message ({@link LocalBench}). */
    record Jmh() implements ChartPlan {
    }

    /**
     * A throughput series: the medians of {@code impl}/{@code mode} at each size it ran. Lines of one
     * implementation share its colour; {@code dashed} sets apart a second kind of operation (RMA puts).
     */
    record Line(String label, String impl, String mode, boolean dashed) {
    }

    /** A latency bar: the median over runs of {@code impl}'s 64-byte ping-pong median and p99 round trips. */
    record Bar(String label, String impl) {
    }
}
