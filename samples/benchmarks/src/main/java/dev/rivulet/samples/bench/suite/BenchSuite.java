package dev.rivulet.samples.bench.suite;

import dev.rivulet.samples.bench.Machine;
import dev.rivulet.samples.bench.suite.SuiteCharts.ChartFile;
import dev.rivulet.samples.bench.suite.SuiteSection.Block;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Every transport available on this machine, side by side with the baselines its benchmark already uses, in one
 * command ({@code bin/bench}): libfabric {@code tcp} and {@code shm} with {@code FabricBenchCli}, Rivulet's own
 * {@code shm://} ({@code rivulet-shm}) with {@code ShmBenchCli}, io_uring with {@code UringBenchCli} with each idle
 * strategy, the interaction models over io_uring and {@code shm://} against RSocket ({@code interactions}) with
 * {@code InteractionBenchCli}, and the {@code local} transport's JMH benchmark and {@code IdleCpu}.
 * What cannot run here is skipped with the reason. Each transport's tables go into its detail page beside its charts
 * ({@code docs/benchmarks/tcp.md}, {@code tcp-throughput.png}, ...; {@link SuiteSection}), and the table across
 * transports in {@code docs/benchmarks.md} is rebuilt from those pages ({@link SuiteSummary}); {@code --render}
 * rebuilds it without measuring anything.
 *
 * <pre>
 * bin/bench [--quick] [--only tcp,shm,rivulet-shm,sockets,uring,interactions,local] [--runs N] [--scale F]
 *           [--no-quiet-gate] [--render] [--docs PATH] [--charts DIR] [--work DIR]
 * </pre>
 *
 * <p>The side-by-side CLIs run in JVMs of their own (each starts its own node JVMs and native programs), one after
 * the other, so that no two measurements share the machine; this JVM only orchestrates, runs JMH's {@code Runner}
 * (which forks the benchmark JVM) and draws the charts.
 */
public final class BenchSuite {

    private final SuiteOptions options;

    BenchSuite(SuiteOptions options) {
        this.options = options;
    }

    public static void main(String[] args) throws Exception {
        if (Arrays.asList(args).contains("--help")) {
            System.out.print(SuiteOptions.USAGE);
            return;
        }
        // Charts are drawn off screen: no display is needed, or wanted, on a benchmark machine.
        System.setProperty("java.awt.headless", "true");
        SuiteOptions o;
        try {
            o = SuiteOptions.parse(args, SuiteOptions.findRepoRoot());
        } catch (IllegalArgumentException | IllegalStateException e) {
            System.err.println("bench: " + e.getMessage());
            System.err.print(SuiteOptions.USAGE);
            System.exit(64);
            return;
        }
        System.exit(new BenchSuite(o).run());
    }

    /**
     * Runs the plan, writes charts and detail pages, and rebuilds the summary table; returns the exit status (1 when
     * a transport failed).
     */
    int run() throws Exception {
        long t0 = System.nanoTime();
        String machine = Machine.describe();
        System.out.println("# bench suite on " + machine + (options.quick() ? " (quick run)" : ""));
        Map<Bench, Block> blocks = new LinkedHashMap<>();
        List<String> summary = new ArrayList<>();
        boolean failed = false;
        for (Bench bench : Bench.plan(options)) {
            Optional<String> why = bench.unavailable();
            if (why.isPresent()) {
                System.out.println("# skipping " + bench.id() + ": " + why.get());
                blocks.put(bench, SuiteSection.notMeasured(bench, why.get()));
                summary.add(String.format(Locale.ROOT, "  %-14s skipped: %s", bench.id(), why.get()));
                continue;
            }
            System.out.println();
            System.out.println("# ===== " + bench.id() + ": " + bench.name());
            long t = System.nanoTime();
            try {
                BenchReport report = bench.run(options);
                List<ChartFile> charts = SuiteCharts.write(report, options.charts(), machine);
                charts.forEach(c -> System.out.println("# wrote " + options.charts().resolve(c.name())));
                blocks.put(bench, SuiteSection.measured(report, charts, "", machine, options.quick()));
                summary.add(String.format(Locale.ROOT, "  %-14s %4.0f s, %d chart(s)", bench.id(), seconds(t),
                        charts.size()));
            } catch (Exception e) {
                // One transport's failure must not cost the others' results; the section keeps its last block.
                failed = true;
                System.out.println("# " + bench.id() + " FAILED: " + e);
                e.printStackTrace(System.out);
                summary.add(String.format(Locale.ROOT, "  %-14s FAILED after %.0f s: %s", bench.id(), seconds(t),
                        e.getMessage()));
            }
        }
        for (String transport : SuiteOptions.TRANSPORTS) {
            Map<String, Block> ofPage = new LinkedHashMap<>();
            blocks.forEach((bench, block) -> {
                if (bench.transport().equals(transport)) {
                    ofPage.put(bench.id(), block);
                }
            });
            if (!ofPage.isEmpty()) {
                Path page = options.charts().resolve(transport + ".md");
                SuiteSection.update(page, SuiteSection.heading(transport), ofPage);
                System.out.println("# updated " + page);
            }
        }
        SuiteSummary.update(options.docs(), options.charts());
        System.out.println("# updated " + options.docs());
        System.out.println();
        System.out.println("# bench suite summary (" + (options.quick() ? "quick run, " : "")
                + String.format(Locale.ROOT, "%.0f s in all):", seconds(t0)));
        summary.forEach(System.out::println);
        return failed ? 1 : 0;
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }
}
