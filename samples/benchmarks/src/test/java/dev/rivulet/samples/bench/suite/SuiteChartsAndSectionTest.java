package dev.rivulet.samples.bench.suite;

import dev.rivulet.samples.bench.Results;
import dev.rivulet.samples.bench.suite.ChartPlan.Bar;
import dev.rivulet.samples.bench.suite.ChartPlan.Line;
import dev.rivulet.samples.bench.suite.SuiteSection.Block;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The suite's charts and doc section from a small fixed set of results: no benchmark runs. */
class SuiteChartsAndSectionTest {

    private static final String MACHINE = "2 vCPUs (test CPU), 8.0 GiB memory, Linux 6.1, Test-JDK-25";
    private static final List<Integer> SIZES = List.of(64, 4096, 65536, 1048576);

    @BeforeAll
    static void headless() {
        System.setProperty("java.awt.headless", "true");
    }

    /** Two runs of every measurement a FabricBenchCli run records, with rates that scale like real ones. */
    static Results fabricResults() {
        Results r = new Results();
        for (int run = 0; run < 2; run++) {
            for (int size : SIZES) {
                stream(r, "rivulet", "stream", size, 4e6 / Math.sqrt(size) * (1 + run * 0.1));
                stream(r, "native", "stream", size, 3e6 / Math.sqrt(size));
                stream(r, "rivulet", "write", size, 2e6 / Math.sqrt(size));
                stream(r, "native", "write", size, 2.2e6 / Math.sqrt(size));
                stream(r, "native", "write-dc", size, 1.8e6 / Math.sqrt(size));
            }
            stream(r, "netty", "netty", 64, 2e6);
            pingpong(r, "rivulet", 11.0 + run, 40);
            pingpong(r, "native", 10.0, 30);
        }
        return r;
    }

    static Results uringResults() {
        Results r = new Results();
        for (int size : SIZES) {
            stream(r, "rivulet", "stream", size, 2e6 / Math.sqrt(size));
            stream(r, "netty", "stream", size, 3e6 / Math.sqrt(size));
            stream(r, "native", "stream", size, 1e6 / Math.sqrt(size));
        }
        pingpong(r, "rivulet", 31.7, 90);
        pingpong(r, "netty", 53.1, 150);
        pingpong(r, "native", 50.8, 70);
        return r;
    }

    /** Two benchmark methods (a second one draws a second series and adds rows). */
    static Results localResults() {
        Results r = new Results();
        for (String method : List.of("stream", "claim")) {
            for (int size : List.of(64, 256, 4096)) {
                for (int i = 0; i < 3; i++) {
                    r.add("rivulet", LocalBench.JMH + method, size, Map.of("msgs_per_s",
                            Double.toString((method.equals("claim") ? 2 : 1) * (2.5e6 + i * 1e5)),
                            "alloc_b_per_msg", Double.toString(7.5 - size / 1000.0 + i * 0.01)));
                }
            }
        }
        r.add("rivulet", LocalBench.IDLE, 0, Map.of("progress_threads_pct", "0.48", "process_pct", "0.60",
                "window_s", "10"));
        return r;
    }

    private static void stream(Results r, String impl, String mode, int size, double msgsPerS) {
        r.add(impl, mode, size, Map.of("msgs_per_s", Double.toString(msgsPerS),
                "mb_per_s", Double.toString(msgsPerS * size / 1e6)));
    }

    private static void pingpong(Results r, String impl, double median, double p99) {
        r.add(impl, "pingpong", 64, Map.of("rtt_median_us", Double.toString(median),
                "rtt_p99_us", Double.toString(p99)));
    }

    static BenchReport tcp() {
        return new BenchReport("tcp", "libfabric tcp", "libfabric `tcp`: Rivulet against native libfabric",
                "About tcp.", fabricResults(), "| measurement | native median |\n|---|---:|\n| streaming send | 1 |\n",
                "java -cp x FabricBenchCli --provider tcp", "bin/bench --only tcp",
                new ChartPlan.Transport(List.of(new Line("Rivulet send", "rivulet", "stream", false),
                        new Line("native fi_send", "native", "stream", false),
                        new Line("Rivulet put", "rivulet", "write", true),
                        new Line("native fi_writemsg", "native", "write-dc", true),
                        new Line("Reactor Netty", "netty", "netty", false)),
                        List.of(new Bar("Rivulet", "rivulet"), new Bar("native libfabric", "native"))));
    }

    static BenchReport uring() {
        return new BenchReport("uring-default", "io_uring, default idle strategy", "io_uring, default idle",
                "About io_uring.", uringResults(),
                "| measurement | Rivulet / Netty |\n|---|---:|\n| streaming | 0.5 |\n",
                "java -cp x UringBenchCli --idle default", "bin/bench --only uring",
                new ChartPlan.Transport(List.of(new Line("Rivulet io_uring", "rivulet", "stream", false),
                        new Line("Reactor Netty", "netty", "stream", false),
                        new Line("plain C", "native", "stream", false)),
                        List.of(new Bar("Rivulet", "rivulet"), new Bar("Netty", "netty"), new Bar("C", "native"))));
    }

    static BenchReport local() {
        Results r = localResults();
        return new BenchReport("local", "local (in-JVM) transport", "`local`", LocalBench.about(), r,
                LocalBench.table(r, LocalBench.FULL), "java -jar x LocalStreaming", "bin/bench --only local",
                new ChartPlan.Jmh());
    }

    @Test
    void chartsAreWrittenAtTheSheetSize(@TempDir Path dir) throws Exception {
        List<String> written = new ArrayList<>();
        for (BenchReport r : List.of(tcp(), uring(), local())) {
            SuiteCharts.write(r, dir, MACHINE).forEach(f -> written.add(f.name()));
        }
        assertThat(written).containsExactly("tcp-throughput.png", "tcp-latency.png",
                "uring-default-throughput.png", "uring-default-latency.png", "local-jmh.png");
        // Every sheet has two panels side by side under the common header.
        int[] size = ChartSheet.size(2);
        for (String name : written) {
            BufferedImage png = ImageIO.read(dir.resolve(name).toFile());
            assertThat(png).as(name).isNotNull();
            assertThat(png.getWidth()).as(name).isEqualTo(size[0]);
            assertThat(png.getHeight()).as(name).isEqualTo(size[1]);
            // Something was drawn: not a blank sheet.
            assertThat(distinctColours(png)).as(name).isGreaterThan(20);
        }
    }

    @Test
    void noResultsMeansNoChart(@TempDir Path dir) throws Exception {
        BenchReport empty = new BenchReport("shm", "libfabric shm", "shm", "", new Results(), "", "", "",
                tcp().charts());
        assertThat(SuiteCharts.write(empty, dir, MACHINE)).isEmpty();
    }

    @Test
    void sectionHasTablesImagesMachineAndCommands(@TempDir Path dir) throws Exception {
        Map<String, Block> blocks = new LinkedHashMap<>();
        for (BenchReport r : List.of(tcp(), uring(), local())) {
            blocks.put(r.id(), SuiteSection.measured(r, SuiteCharts.write(r, dir, MACHINE), "benchmarks", MACHINE,
                    false));
        }
        String doc = "# Benchmarks\n\nHand-written method.\n\n## io_uring\n\n<!-- uring-bench:spin:begin -->\nold\n"
                + "<!-- uring-bench:spin:end -->\n\nHand-written notes.\n";
        String out = SuiteSection.updated(doc, blocks);

        assertThat(out).startsWith(doc.stripTrailing());
        assertThat(out.indexOf(SuiteSection.BEGIN)).isGreaterThan(out.indexOf("Hand-written notes."));
        assertThat(out.trim()).endsWith(SuiteSection.END);
        assertThat(out).contains("| streaming send | 1 |", "| streaming | 0.5 |",
                "| benchmark | size | unit | Rivulet median (min .. max) |",
                "| `stream` | 64 B | ns/msg | 384.6 (370.4 .. 400.0) | 2 600 000 (2 500 000 .. 2 700 000) | 2 600 000 ± ",
                "| `claim` | 4 KiB | ns/msg | 192.3 (185.2 .. 200.0) |",
                "**0.48 % of one core**");
        assertThat(out).contains("![libfabric tcp: throughput by message size](benchmarks/tcp-throughput.png)",
                "(benchmarks/tcp-latency.png)", "(benchmarks/uring-default-throughput.png)",
                "(benchmarks/uring-default-latency.png)", "(benchmarks/local-jmh.png)");
        assertThat(out).contains("Machine: " + MACHINE + ".", "Reproduce: `bin/bench --only tcp` (it runs "
                + "`java -cp x FabricBenchCli --provider tcp`)");
        assertThat(out.indexOf("bench-suite:tcp:begin")).isLessThan(out.indexOf("bench-suite:uring-default:begin"));
        assertThat(out.indexOf("bench-suite:uring-default:begin")).isLessThan(out.indexOf("bench-suite:local:begin"));
    }

    @Test
    void laterRunsReplaceOnlyTheirBlocksAndKeepTextOutside() {
        Block tcpOld = new Block("### tcp\n\nold tcp table\n", true);
        Block local = new Block("### local\n\nlocal table\n", true);
        String first = SuiteSection.updated("# Benchmarks\n\nintro\n", Map.of("tcp", tcpOld, "local", local));
        String edited = first.replace("# Benchmarks\n\nintro\n", "# Benchmarks\n\nrewritten intro\n")
                + "\nNotes after the section.\n";

        String second = SuiteSection.updated(edited, Map.of("tcp", new Block("### tcp\n\nnew tcp table\n", true)));
        assertThat(second).contains("rewritten intro", "Notes after the section.", "new tcp table", "local table")
                .doesNotContain("old tcp table");
        assertThat(second.split(SuiteSection.BEGIN, -1)).hasSize(2);

        // A transport this machine lacks does not wipe results an earlier machine recorded...
        Bench tcp = new FabricBench("tcp", false);
        String third = SuiteSection.updated(second, Map.of("tcp", SuiteSection.notMeasured(tcp, "no libfabric")));
        assertThat(third).contains("new tcp table").doesNotContain("no libfabric");
        // ...but it is reported where there were none.
        String fourth = SuiteSection.updated(third, Map.of("shm",
                SuiteSection.notMeasured(new FabricBench("shm", false), "no shm")));
        assertThat(fourth).contains("Not measured: no shm.");
        assertThat(fourth.indexOf("bench-suite:shm:begin")).isBetween(fourth.indexOf("bench-suite:tcp:end"),
                fourth.indexOf("bench-suite:local:begin"));
    }

    @Test
    void resultsSurviveTheirFile(@TempDir Path dir) throws Exception {
        Results r = fabricResults();
        r.write(dir.resolve("tcp.tsv"));
        Results back = Results.read(dir.resolve("tcp.tsv"));
        for (int size : SIZES) {
            assertThat(back.spread("rivulet", "stream", size, "msgs_per_s"))
                    .isEqualTo(r.spread("rivulet", "stream", size, "msgs_per_s"));
            assertThat(back.spread("native", "write-dc", size, "mb_per_s"))
                    .isEqualTo(r.spread("native", "write-dc", size, "mb_per_s"));
        }
        assertThat(back.pairedRatio("rivulet", "native", "pingpong", 64, "rtt_median_us"))
                .isEqualTo(r.pairedRatio("rivulet", "native", "pingpong", 64, "rtt_median_us"));
        assertThat(back.sizes("netty", "netty")).containsExactly(64);
    }

    private static int distinctColours(BufferedImage img) {
        Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < img.getHeight(); y += 3) {
            for (int x = 0; x < img.getWidth(); x += 3) {
                colours.add(img.getRGB(x, y));
            }
        }
        return colours.size();
    }
}
