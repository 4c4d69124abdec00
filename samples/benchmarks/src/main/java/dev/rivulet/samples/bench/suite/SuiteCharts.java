package dev.rivulet.samples.bench.suite;

import dev.rivulet.samples.bench.Results;
import dev.rivulet.samples.bench.Results.Spread;
import dev.rivulet.samples.bench.suite.ChartPlan.Bar;
import dev.rivulet.samples.bench.suite.ChartPlan.Line;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.Marker;
import org.knowm.xchart.style.markers.SeriesMarkers;
import org.openjdk.jmh.util.ListStatistics;

import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static dev.rivulet.samples.bench.Results.sizeName;

/** Draws a transport's charts from its results into PNG files named after its id. */
final class SuiteCharts {

    /** A chart written: its file name (in the charts directory) and a text for the image's alt attribute. */
    record ChartFile(String name, String alt) {
    }

    /** Each implementation keeps one colour and marker across every chart. */
    private record Look(Color color, Marker marker) {
    }

    private static final Look RIVULET = new Look(new Color(31, 119, 180), SeriesMarkers.CIRCLE);
    private static final Look NETTY = new Look(new Color(44, 160, 44), SeriesMarkers.SQUARE);

    /**
     * By implementation as the CLIs file their runs; the interaction benchmark's Rivulet over io_uring keeps
     * Rivulet's look, and RSocket, which runs on Reactor Netty, Netty's.
     */
    private static final Map<String, Look> LOOKS = Map.ofEntries(
            Map.entry("rivulet", RIVULET),
            Map.entry("native", new Look(new Color(255, 127, 14), SeriesMarkers.DIAMOND)),
            Map.entry("netty", NETTY),
            Map.entry("native-bound", new Look(new Color(214, 39, 40), SeriesMarkers.TRIANGLE_UP)),
            Map.entry("fabric-shm", new Look(new Color(148, 103, 189), SeriesMarkers.SQUARE)),
            Map.entry("aeron", new Look(new Color(23, 190, 207), SeriesMarkers.DIAMOND)),
            Map.entry("memcpy", new Look(new Color(127, 127, 127), SeriesMarkers.TRIANGLE_UP)),
            Map.entry("memcpy-c", new Look(new Color(188, 189, 34), SeriesMarkers.TRIANGLE_DOWN)),
            Map.entry("uring", RIVULET),
            Map.entry("shm", new Look(new Color(140, 86, 75), SeriesMarkers.DIAMOND)),
            Map.entry("rsocket", NETTY));

    private static final Font TITLE = new Font(Font.SANS_SERIF, Font.BOLD, 15);
    private static final Font TEXT = new Font(Font.SANS_SERIF, Font.PLAIN, 13);

    private SuiteCharts() {
    }

    /** Writes {@code r}'s charts into {@code dir}; {@code machine} goes into each one's note. */
    static List<ChartFile> write(BenchReport r, Path dir, String machine) throws IOException {
        List<ChartFile> files = new ArrayList<>();
        switch (r.charts()) {
            case ChartPlan.Transport t -> {
                if (hasAny(r.results(), t.throughput())) {
                    ChartFile f = new ChartFile(r.id() + "-throughput.png", r.name() + ": throughput by message size");
                    ChartSheet.write(dir.resolve(f.name()), r.name() + ": streaming throughput by message size",
                            note(machine, runs(r.results(), t)), List.of(
                                    throughput(r.results(), t.throughput(), "Messages per second", "msgs/s",
                                            "msgs_per_s", 1, "#,###"),
                                    throughput(r.results(), t.throughput(), "Gigabytes per second", "GB/s (10^9 B/s)",
                                            "mb_per_s", 1e-3, "#,##0.######")));
                    files.add(f);
                }
                List<Bar> bars = t.latency().stream()
                        .filter(b -> r.results().spread(b.impl(), "pingpong", 64, "rtt_median_us") != null).toList();
                if (!bars.isEmpty()) {
                    ChartFile f = new ChartFile(r.id() + "-latency.png", r.name() + ": ping-pong round trip");
                    ChartSheet.write(dir.resolve(f.name()), r.name() + ": 64-byte ping-pong round trip (lower is "
                                    + "better)", note(machine, runs(r.results(), t)), List.of(
                                    latency(r.results(), bars, "Median round trip", "rtt_median_us"),
                                    latency(r.results(), bars, "99th percentile round trip", "rtt_p99_us")));
                    files.add(f);
                }
            }
            case ChartPlan.Jmh j -> {
                List<String> modes = LocalBench.jmhModes(r.results());
                if (!modes.isEmpty()) {
                    String first = modes.getFirst();
                    int n = r.results().values("rivulet", first,
                            r.results().sizes("rivulet", first).iterator().next(), "msgs_per_s").length;
                    ChartFile f = new ChartFile(r.id() + "-jmh.png", r.name() + ": JMH throughput and allocation");
                    ChartSheet.write(dir.resolve(f.name()), r.name() + ": streaming send (JMH)",
                            machine + " · mean of " + n + " JMH iterations, error bars: 99.9 % confidence",
                            List.of(jmh(r.results(), modes, "Messages per second", "msgs/s", "msgs_per_s", "#,###"),
                                    jmh(r.results(), modes, "Heap allocated per message", "bytes per message",
                                            "alloc_b_per_msg", "#,##0.##")));
                    files.add(f);
                }
            }
        }
        return files;
    }

    private static String note(String machine, int runs) {
        return machine + " · " + (runs == 1 ? "1 run" : "medians of " + runs + " runs");
    }

    /** The largest number of recorded runs behind a point of {@code t}'s charts. */
    private static int runs(Results r, ChartPlan.Transport t) {
        int n = 0;
        for (Line l : t.throughput()) {
            for (int size : r.sizes(l.impl(), l.mode())) {
                n = Math.max(n, r.values(l.impl(), l.mode(), size, "msgs_per_s").length);
            }
        }
        return n;
    }

    private static boolean hasAny(Results r, List<Line> lines) {
        return lines.stream().anyMatch(l -> !r.sizes(l.impl(), l.mode()).isEmpty());
    }

    /**
     * Medians of {@code field} × {@code factor} against message size. XChart's logarithmic axis labels only powers
     * of ten, and message sizes are powers of two: the x axis is log2(size), labelled with the sizes, so it is a
     * logarithmic axis whose ticks fall on the measured sizes. The rates span orders of magnitude (64 B messages
     * against 1 MiB ones, coalesced against one syscall per message), so the y axis is logarithmic too.
     */
    private static XYChart throughput(Results r, List<Line> lines, String title, String unit, String field,
                                      double factor, String pattern) {
        XYChart c = new XYChartBuilder().width(ChartSheet.PANEL_WIDTH).height(ChartSheet.PANEL_HEIGHT).title(title)
                .xAxisTitle("message size (log scale)").yAxisTitle(unit + " (log scale)").build();
        style(c.getStyler());
        c.getStyler().setYAxisLogarithmic(true);
        c.getStyler().setYAxisDecimalPattern(pattern);
        // Below the plot, one series a line: inside it the legend would hide points, side by side it is too wide.
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        c.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
        Set<Integer> all = new TreeSet<>();
        for (Line l : lines) {
            List<Double> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            for (int size : r.sizes(l.impl(), l.mode())) {
                Spread s = r.spread(l.impl(), l.mode(), size, field);
                if (s != null && s.median() > 0) {
                    xs.add(log2(size));
                    ys.add(s.median() * factor);
                    all.add(size);
                }
            }
            if (xs.isEmpty()) {
                continue;
            }
            XYSeries s = c.addSeries(l.label(), xs, ys);
            Look look = LOOKS.getOrDefault(l.impl(), RIVULET);
            s.setLineColor(look.color());
            s.setMarkerColor(look.color());
            s.setMarker(look.marker());
            s.setLineStyle(l.dashed() ? SeriesLines.DASH_DASH : SeriesLines.SOLID);
        }
        if (!all.isEmpty()) {
            // Whole powers of two at both ends, so that the ticks XChart picks fall on them (and get labels).
            c.getStyler().setXAxisMin(Math.floor(log2(((TreeSet<Integer>) all).first())) - 1);
            c.getStyler().setXAxisMax(Math.ceil(log2(((TreeSet<Integer>) all).last())) + 1);
        }
        c.setCustomXAxisTickLabelsFormatter(x -> {
            long e = Math.round(x);
            return Math.abs(x - e) < 1e-6 && e >= 0 && e < 62 ? sizeName((int) Math.min(1L << e, Integer.MAX_VALUE))
                    : "";
        });
        return c;
    }

    /** One bar per implementation: the median over runs of {@code field} of its 64-byte ping-pong. */
    private static CategoryChart latency(Results r, List<Bar> bars, String title, String field) {
        CategoryChart c = new CategoryChartBuilder().width(ChartSheet.PANEL_WIDTH).height(ChartSheet.PANEL_HEIGHT)
                .title(title).xAxisTitle("").yAxisTitle("round trip (µs)").build();
        style(c.getStyler());
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        c.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        c.getStyler().setLabelsVisible(true);
        c.getStyler().setLabelsFont(TEXT);
        c.getStyler().setYAxisDecimalPattern("#,##0.##");
        c.getStyler().setYAxisMin(0.0);
        for (Bar b : bars) {
            Spread s = r.spread(b.impl(), "pingpong", 64, field);
            if (s == null) {
                continue;
            }
            CategorySeries series = c.addSeries(b.label(), List.of("64 B"), List.of(s.median()));
            series.setFillColor(LOOKS.getOrDefault(b.impl(), RIVULET).color());
        }
        return c;
    }

    /**
     * JMH's mean per message size, with its 99.9 % error as error bars: one series per benchmark (method and
     * parameters), a legend only where there are several.
     */
    private static CategoryChart jmh(Results r, List<String> modes, String title, String unit, String field,
                                     String pattern) {
        CategoryChart c = new CategoryChartBuilder().width(ChartSheet.PANEL_WIDTH).height(ChartSheet.PANEL_HEIGHT)
                .title(title).xAxisTitle("message size").yAxisTitle(unit).build();
        style(c.getStyler());
        c.getStyler().setLegendVisible(modes.size() > 1);
        // No value labels: the error bars would cross them (the table has the values).
        c.getStyler().setYAxisDecimalPattern(pattern);
        c.getStyler().setYAxisMin(0.0);
        c.getStyler().setErrorBarsColor(Color.DARK_GRAY);
        for (String mode : modes) {
            List<String> xs = new ArrayList<>();
            List<Double> ys = new ArrayList<>();
            List<Double> errors = new ArrayList<>();
            for (int size : r.sizes("rivulet", mode)) {
                double[] v = r.values("rivulet", mode, size, field);
                if (v.length == 0) {
                    continue;
                }
                ListStatistics st = new ListStatistics(v);
                xs.add(sizeName(size));
                ys.add(st.getMean());
                errors.add(st.getN() > 1 ? st.getMeanErrorAt(0.999) : 0);
            }
            if (!xs.isEmpty()) {
                CategorySeries s = c.addSeries("Rivulet local " + LocalBench.benchmarkName(mode).replace("`", ""),
                        xs, ys, errors);
                if (modes.size() == 1) {
                    s.setFillColor(RIVULET.color());
                }
            }
        }
        return c;
    }

    private static void style(AxesChartStyler s) {
        s.setChartBackgroundColor(Color.WHITE);
        s.setPlotBackgroundColor(Color.WHITE);
        s.setChartTitleFont(TITLE);
        s.setAxisTitleFont(TEXT);
        s.setAxisTickLabelsFont(TEXT);
        s.setLegendFont(TEXT);
        s.setLegendBorderColor(Color.WHITE);
        s.setPlotGridLinesColor(new Color(220, 220, 220));
        s.setMarkerSize(9);
        s.setChartTitleBoxVisible(false);
    }

    private static double log2(int size) {
        return Math.log(size) / Math.log(2);
    }
}
