package dev.rivulet.samples.bench.suite;

import dev.rivulet.samples.bench.suite.SuiteCharts.ChartFile;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The generated section of a transport's detail page ({@code docs/benchmarks/tcp.md}, {@code uring.md}, ...),
 * between {@value #BEGIN} and {@value #END} (appended at the end of the file when they are missing); nothing outside
 * them is touched. Inside, each transport configuration (one for most pages, one per idle strategy on
 * {@code uring.md}) owns a block between {@code <!-- bench-suite:ID:begin -->} and {@code <!-- bench-suite:ID:end -->}: a run replaces
 * the blocks of what it measured and keeps the others, so {@code bin/bench --only tcp} leaves the other transports'
 * latest results in place. The table across transports in {@code docs/benchmarks.md} is derived from these pages
 * ({@link SuiteSummary}). A transport that could not run replaces only a block that holds no results.
 */
final class SuiteSection {

    static final String BEGIN = "<!-- bench-suite:begin -->";
    static final String END = "<!-- bench-suite:end -->";

    /** The order of the blocks: the suite's run order. */
    static final List<String> ORDER = List.of("tcp", "shm", "rivulet-shm", "sockets", "uring-default",
            "uring-spin", "uring-blocking", "interactions", "local");

    private static final Pattern BLOCK = Pattern.compile(
            "<!-- bench-suite:([a-z0-9-]+):begin -->\\n(.*?)<!-- bench-suite:\\1:end -->", Pattern.DOTALL);

    /** Marks the text of a block that holds no results (a transport this machine lacks). */
    private static final String NOT_MEASURED = "Not measured: ";

    static final String INTRO = """
            ## Results (written by `bin/bench`)

            Tables are in the format of the CLI that measured them (medians and min .. max over the recorded runs,
            ratios against the baselines, targets where the CLI has them); the charts plot the same medians, MB and
            GB being 10^6 and 10^9 bytes. Each block below is replaced when its configuration runs again, and the
            table across transports in [the summary](../benchmarks.md) is rebuilt from these pages; everything
            outside this section is written by hand. `bin/bench --quick` takes one short run of everything, to check
            that it works: its numbers are not for comparison.
            """;

    private SuiteSection() {
    }

    /** A block's text (without its markers), and whether it holds results. */
    record Block(String text, boolean measured) {
    }

    /**
     * The block of a transport that ran. {@code chartDir} is the charts' directory relative to the page, empty when
     * they are side by side.
     */
    static Block measured(BenchReport r, List<ChartFile> charts, String chartDir, String machine, boolean quick) {
        StringBuilder b = new StringBuilder();
        b.append("### ").append(r.title()).append("\n\n");
        b.append(r.about()).append("\n\n");
        if (quick) {
            b.append("Quick run (`--quick`: one run of each measurement, a tenth of the messages, short JMH "
                    + "iterations): it shows that everything runs, not how fast.\n\n");
        }
        b.append(r.table().strip()).append("\n\n");
        for (ChartFile c : charts) {
            String src = chartDir.isEmpty() ? c.name() : chartDir + "/" + c.name();
            b.append("![").append(c.alt()).append("](").append(src).append(")\n\n");
        }
        b.append("Machine: ").append(machine).append(".\n\n");
        b.append("Reproduce: `").append(r.reproduce()).append("` (it runs `").append(r.command()).append("`).\n");
        return new Block(b.toString(), true);
    }

    /** The block of a transport this machine cannot run. */
    static Block notMeasured(Bench bench, String reason) {
        return new Block("### " + bench.title() + "\n\n" + NOT_MEASURED + reason + ".\n", false);
    }

    /** The title of a transport's detail page, for a page the suite creates. */
    static String heading(String transport) {
        return switch (transport) {
            case "tcp" -> "Benchmarks: libfabric `tcp`";
            case "shm" -> "Benchmarks: libfabric `shm`";
            case "rivulet-shm" -> "Benchmarks: Rivulet `shm://`";
            case "sockets" -> "Benchmarks: libfabric `sockets` (compatibility only)";
            case "uring" -> "Benchmarks: io_uring";
            case "interactions" -> "Benchmarks: interaction models against RSocket";
            case "local" -> "Benchmarks: `local` (in-JVM)";
            default -> "Benchmarks: " + transport;
        };
    }

    /** Rewrites {@code page}'s blocks; a page that does not exist yet starts with {@code heading}. */
    static void update(Path page, String heading, Map<String, Block> blocks) throws IOException {
        String doc = Files.exists(page) ? Files.readString(page, StandardCharsets.UTF_8)
                : "# " + heading + "\n\nThe figures across transports are in [the summary](../benchmarks.md).\n";
        Files.createDirectories(page.toAbsolutePath().getParent());
        Files.writeString(page, updated(doc, blocks), StandardCharsets.UTF_8);
    }

    /** {@code doc} with its section rebuilt from the blocks it had and {@code blocks}. */
    static String updated(String doc, Map<String, Block> blocks) {
        int b = doc.indexOf(BEGIN);
        int e = doc.indexOf(END);
        boolean present = b >= 0 && e > b;
        Map<String, Block> merged = new LinkedHashMap<>();
        if (present) {
            Matcher m = BLOCK.matcher(doc.substring(b + BEGIN.length(), e));
            while (m.find()) {
                merged.put(m.group(1), new Block(m.group(2), !m.group(2).contains(NOT_MEASURED)));
            }
        }
        blocks.forEach((id, block) -> {
            Block old = merged.get(id);
            if (block.measured() || old == null || !old.measured()) {
                merged.put(id, block);
            }
        });
        List<String> ids = new ArrayList<>(ORDER.stream().filter(merged::containsKey).toList());
        merged.keySet().stream().filter(id -> !ORDER.contains(id)).forEach(ids::add);
        StringBuilder s = new StringBuilder(BEGIN).append('\n').append(INTRO);
        for (String id : ids) {
            s.append('\n').append("<!-- bench-suite:").append(id).append(":begin -->\n")
                    .append(merged.get(id).text().strip()).append('\n')
                    .append("<!-- bench-suite:").append(id).append(":end -->\n");
        }
        s.append(END);
        if (!present) {
            return doc.stripTrailing() + (doc.isBlank() ? "" : "\n\n") + s + "\n";
        }
        return doc.substring(0, b) + s + doc.substring(e + END.length());
    }
}
