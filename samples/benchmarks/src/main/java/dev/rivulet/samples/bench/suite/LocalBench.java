package dev.rivulet.samples.bench.suite;

import dev.rivulet.core.Transports;
import dev.rivulet.core.spi.TransportProvider;
import dev.rivulet.samples.bench.IdleCpu;
import dev.rivulet.samples.bench.LocalStreamingBenchmark;
import dev.rivulet.samples.bench.Results;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.util.ListStatistics;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import static dev.rivulet.samples.bench.Results.sizeName;
import static dev.rivulet.samples.bench.Results.value;

/**
 * The in-JVM {@code local} transport: {@link LocalStreamingBenchmark} through JMH's {@link Runner} with the GC
 * profiler (messages per second and bytes allocated per message, per iteration), then {@link IdleCpu} in a JVM of its
 * own (a measurement of process CPU time must not count the suite's threads).
 */
record LocalBench() implements Bench {

    /**
     * The results' modes for JMH iterations start with this, followed by the benchmark method and any parameter other
     * than the message size ({@link #jmhMode}): one table row per method, parameters and size.
     */
    static final String JMH = "jmh-";
    /** The idle measurement's mode (filed at size 0). */
    static final String IDLE = "idle-cpu";
    /** The unit of the time per message. */
    static final String NS = "ns/msg";

    /** The engine's target per 64-byte message, end to end: the per-message work the transports all pay. */
    static final double TARGET_NS_PER_MESSAGE = 25;
    static final int TARGET_SIZE = 64;

    /** IdleCpu's flags, as docs/benchmarks.md runs it. */
    private static final List<String> IDLE_FLAGS = List.of("--enable-native-access=ALL-UNNAMED");

    /**
     * JMH iterations and the idle window. {@link #FULL} is the documented method (1 fork, 3 × 2 s warm-up, 5 × 3 s
     * measured; 10 s idle window after 2 s); {@link #QUICK} only checks that it all runs.
     */
    record Settings(int warmups, String warmupTime, int iterations, String iterationTime, int idleSeconds,
                    String idleSettleSeconds) {

        Options jmhOptions() {
            // The fork's JVM flags come from the benchmark's @Fork, as with the jar's command line.
            return new OptionsBuilder()
                    .include("^" + Pattern.quote(LocalStreamingBenchmark.class.getName()) + "\\.")
                    .forks(1)
                    .warmupIterations(warmups).warmupTime(TimeValue.fromString(warmupTime))
                    .measurementIterations(iterations).measurementTime(TimeValue.fromString(iterationTime))
                    .addProfiler(GCProfiler.class)
                    .shouldFailOnError(true)
                    .build();
        }

        /** The same JMH run from the command line. */
        String jmhCommand() {
            return String.format(Locale.ROOT, "java -jar %s LocalStreaming -f 1 -wi %d -i %d -w %s -r %s -prof gc",
                    CliRun.JAR, warmups, iterations, warmupTime, iterationTime);
        }

        List<String> idleArgs() {
            return List.of(Integer.toString(idleSeconds), idleSettleSeconds);
        }
    }

    static final Settings FULL = new Settings(3, "2s", 5, "3s", 10, "2");
    static final Settings QUICK = new Settings(1, "1s", 3, "500ms", 2, "0.5");

    @Override
    public String id() {
        return "local";
    }

    @Override
    public String transport() {
        return "local";
    }

    @Override
    public String name() {
        return "local (in-JVM) transport";
    }

    @Override
    public String title() {
        return "`local` (in-JVM) transport: JMH streaming send, allocation and idle CPU";
    }

    @Override
    public Optional<String> unavailable() {
        Optional<TransportProvider> p = Transports.provider("local");
        return p.isEmpty() ? Optional.of("no local transport provider on the class path")
                : p.get().availability().available() ? Optional.empty()
                : Optional.of("local is unavailable: " + p.get().availability().reason());
    }

    @Override
    public BenchReport run(SuiteOptions o) throws Exception {
        Settings s = o.quick() ? QUICK : FULL;
        Results results = new Results();
        System.out.println("# " + s.jmhCommand() + "   (through JMH's Runner in this JVM)");
        for (RunResult run : new Runner(s.jmhOptions()).run()) {
            BenchmarkParams params = run.getParams();
            int size = Integer.parseInt(params.getParam("size"));
            Map<String, String> others = new TreeMap<>();
            for (String key : params.getParamsKeys()) {
                if (!key.equals("size")) {
                    others.put(key, params.getParam(key));
                }
            }
            String mode = jmhMode(params.getBenchmark(), others);
            for (BenchmarkResult fork : run.getBenchmarkResults()) {
                for (IterationResult it : fork.getIterationResults()) {
                    results.add("rivulet", mode, size, iteration(it));
                }
            }
        }
        List<String> idleOut = CliRun.run(IdleCpu.class, IDLE_FLAGS, s.idleArgs(), o.repoRoot());
        results.add("rivulet", IDLE, 0, idle(idleOut, s));
        results.write(o.work().resolve(id() + ".tsv"));
        String command = s.jmhCommand() + "; " + CliRun.display(IdleCpu.class, IDLE_FLAGS, s.idleArgs());
        return new BenchReport(id(), name(), title(), about(), results, table(results, s), command,
                o.reproduce(transport()), new ChartPlan.Jmh());
    }

    static String about() {
        return "One producer streams to one consumer between two `local` transports in one JVM (one polling thread "
                + "each, as two processes would have): `LocalStreamingBenchmark`, 10 000 messages per JMH invocation, "
                + "so scores are messages per second, their inverse the engine's time per message end to end, and "
                + "`gc.alloc.rate.norm` is bytes allocated per message; then `IdleCpu` measures what an idle "
                + "connected pair costs.";
    }

    /**
     * The mode one JMH benchmark's iterations are filed under: {@code benchmark} is JMH's name for it (the class's
     * name, a dot, the method's), {@code params} its parameters other than the size.
     */
    static String jmhMode(String benchmark, Map<String, String> params) {
        String method = benchmark.substring(benchmark.lastIndexOf('.') + 1);
        return JMH + method + params.entrySet().stream().map(e -> " " + e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining());
    }

    /** The JMH modes of {@code r}, in the order JMH ran them. */
    static List<String> jmhModes(Results r) {
        return r.modes("rivulet").stream().filter(m -> m.startsWith(JMH)).toList();
    }

    /** A row's name for {@code mode}: "`stream`", "`stream api=claim`". */
    static String benchmarkName(String mode) {
        return "`" + mode.substring(JMH.length()) + "`";
    }

    /** One measured iteration's score and allocation per message. */
    private static Map<String, String> iteration(IterationResult it) {
        Map<String, String> m = new HashMap<>();
        m.put("msgs_per_s", Double.toString(it.getPrimaryResult().getScore()));
        for (Map.Entry<String, Result> e : it.getSecondaryResults().entrySet()) {
            // JMH labels it "gc.alloc.rate.norm" (older releases prefix a middle dot).
            if (e.getKey().endsWith("gc.alloc.rate.norm")) {
                m.put("alloc_b_per_msg", Double.toString(e.getValue().getScore()));
            }
        }
        return m;
    }

    private static final Pattern IDLE_THREADS = Pattern.compile("IDLE-CPU progress threads: ([0-9.]+) %");
    private static final Pattern IDLE_PROCESS = Pattern.compile("IDLE-CPU whole JVM process: +([0-9.]+) %");

    /** IdleCpu's two figures from its output. */
    static Map<String, String> idle(List<String> output, Settings s) {
        Map<String, String> m = new HashMap<>();
        for (String line : output) {
            Matcher t = IDLE_THREADS.matcher(line);
            Matcher p = IDLE_PROCESS.matcher(line);
            if (t.find()) {
                m.put("progress_threads_pct", t.group(1));
            } else if (p.find()) {
                m.put("process_pct", p.group(1));
            }
        }
        if (!m.containsKey("progress_threads_pct")) {
            throw new IllegalStateException("IdleCpu printed no IDLE-CPU line");
        }
        m.put("window_s", Integer.toString(s.idleSeconds()));
        return m;
    }

    /**
     * The results as a Markdown table, one row per benchmark method (and parameters) and size: the engine's time per
     * message ({@code 1e9 / msgs/s} of each iteration: median and range), the rate (median and range, JMH's mean and
     * error), allocation per message and, at 64 B, the target; notes under it.
     */
    static String table(Results r, Settings s) {
        StringBuilder b = new StringBuilder();
        b.append("| benchmark | size | unit | Rivulet median (min .. max) | msgs/s, median (min .. max) | msgs/s, "
                + "mean ± JMH error (99.9 %) | allocated per message (`gc.alloc.rate.norm`) | target | met? |\n");
        b.append("|---|---:|---|---:|---:|---:|---:|---|---|\n");
        for (String mode : jmhModes(r)) {
            for (int size : r.sizes("rivulet", mode)) {
                double[] scores = r.values("rivulet", mode, size, "msgs_per_s");
                double[] alloc = r.values("rivulet", mode, size, "alloc_b_per_msg");
                Results.Spread rate = r.spread("rivulet", mode, size, "msgs_per_s");
                // The inverse of a rate: the fastest iteration is the shortest time per message.
                double ns = 1e9 / rate.median();
                double nsMin = 1e9 / rate.max();
                double nsMax = 1e9 / rate.min();
                // JMH's own error: the half-width of the 99.9 % confidence interval over the measured iterations.
                ListStatistics st = new ListStatistics(scores);
                ListStatistics at = new ListStatistics(alloc);
                String target = "—";
                String met = "";
                if (size == TARGET_SIZE) {
                    target = String.format(Locale.ROOT, "≤ %.0f ns/msg", TARGET_NS_PER_MESSAGE);
                    met = ns <= TARGET_NS_PER_MESSAGE ? "yes" : "**no**";
                }
                b.append(String.format(Locale.ROOT, "| %s | %s | ns/msg | %s (%s .. %s) | %s (%s) | %s ± %s | %s | %s "
                                + "| %s |%n", benchmarkName(mode), sizeName(size), value(ns, NS), value(nsMin, NS),
                        value(nsMax, NS), value(rate.median(), "msgs/s"), rate.range("msgs/s"),
                        value(st.getMean(), "msgs/s"), value(error(st), "msgs/s"), alloc.length == 0 ? "—"
                                : String.format(Locale.ROOT, "%.2f ± %.2f B", at.getMean(), error(at)), target, met));
            }
        }
        b.append('\n');
        b.append("Time per message: one second divided by each iteration's rate, the whole engine's work per message "
                + "end to end (the producer, `send`, credits, the hand-over to the receiving transport, `receive()` "
                + "and the release) with one copy of the message in it.\n\n");
        Results.Spread threads = r.spread("rivulet", IDLE, 0, "progress_threads_pct");
        Results.Spread process = r.spread("rivulet", IDLE, 0, "process_pct");
        if (threads != null) {
            b.append(String.format(Locale.ROOT, "Idle CPU (`IdleCpu`: a connected pair, `receive()` subscribed, "
                            + "nothing sent; %d s window after %s s): **%.2f %% of one core** for both polling threads "
                            + "together%s.%n%n", s.idleSeconds(), s.idleSettleSeconds(), threads.median(),
                    process == null ? "" : String.format(Locale.ROOT, ", %.2f %% for the whole JVM process",
                            process.median())));
        }
        b.append(String.format(Locale.ROOT, "JMH: 1 fork, %d warm-up iteration(s) of %s, %d measured iterations "
                        + "of %s, throughput mode, `-prof gc`; %s messages per invocation.%n", s.warmups(),
                s.warmupTime(), s.iterations(), s.iterationTime(), value(LocalStreamingBenchmark.BATCH, "msgs/s")));
        return b.toString();
    }

    /** JMH's error of the mean at 99.9 %, 0 where one iteration gives none. */
    private static double error(ListStatistics st) {
        return st.getN() > 1 ? st.getMeanErrorAt(0.999) : 0;
    }
}
