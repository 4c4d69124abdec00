package dev.rivulet.samples.bench.suite;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code bin/bench --quick --only local} end to end, writing into a temporary directory (seconds, not minutes). */
class BenchSuiteSmokeTest {

    @Test
    void quickLocalRunWritesChartDetailPageAndSummaryRow(@TempDir Path tmp) throws Exception {
        System.setProperty("java.awt.headless", "true");
        Path docs = tmp.resolve("benchmarks.md");
        Files.writeString(docs, "# Benchmarks\n\nHand-written.\n");
        SuiteOptions o = SuiteOptions.parse(new String[]{"--quick", "--only", "local", "--docs", docs.toString(),
                "--charts", tmp.resolve("charts").toString(), "--work", tmp.resolve("work").toString()},
                SuiteOptions.findRepoRoot());

        assertThat(new BenchSuite(o).run()).isZero();

        BufferedImage png = ImageIO.read(tmp.resolve("charts/local-jmh.png").toFile());
        assertThat(png.getWidth()).isEqualTo(ChartSheet.size(2)[0]);
        String page = Files.readString(tmp.resolve("charts/local.md"));
        assertThat(page).startsWith("# " + SuiteSection.heading("local")).contains(SuiteSection.BEGIN,
                SuiteSection.END, "<!-- bench-suite:local:begin -->", "| 64 B |", "| 256 B |", "| 4 KiB |",
                "](local-jmh.png)", "Reproduce: `bin/bench --quick --only local`", "Quick run");
        assertThat(Files.readString(docs)).startsWith("# Benchmarks\n\nHand-written.\n")
                .contains(SuiteSummary.BEGIN, "](charts/local.md) | `stream` | 64 B | ", " ns/msg | — | ≤ 25 ns/msg |",
                        SuiteSummary.END);
        assertThat(tmp.resolve("work/local.tsv")).exists();
    }
}
