package dev.rivulet.samples.bench.suite;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The table across transports, rendered from detail pages without measuring anything. */
class SuiteSummaryTest {

    private static final String TCP_PAGE = """
            # Benchmarks: libfabric `tcp`

            Hand-written method.

            <!-- bench-suite:begin -->
            <!-- bench-suite:tcp:begin -->
            ### libfabric `tcp`: Rivulet against native libfabric and Reactor Netty

            | measurement | size | unit | native median | native min .. max | Rivulet median | Rivulet min .. max \
            | Rivulet / native | target | met? |
            |---|---:|---|---:|---:|---:|---:|---:|---|---|
            | streaming send | 4 KiB | msgs/s | 222 068 | 207 267 .. 226 622 | 203 110 | 196 037 .. 216 433 | 0.91 \
            | — |  |
            | streaming send | 64 KiB | MB/s | 3 643 | 3 532 .. 4 051 | 3 614 | 3 373 .. 4 122 | 0.99 | ≥ 0.9 | yes |
            | rendezvous (same native figures) | 1 MiB | MB/s | 6 256 | 5 711 .. 6 964 | 6 977 | 4 687 .. 7 398 | 1.12 \
            | (≥ 0.9) | yes |
            | Reactor Netty TCP streaming (64-byte frames) in place of native | 64 B | msgs/s | 2 930 244 \
            | 1 709 090 .. 4 392 705 | 4 348 629 | 1 601 936 .. 4 502 197 | 1.48 | ≥ 1 (Rivulet / Netty) | yes |

            Notes.
            <!-- bench-suite:tcp:end -->
            <!-- bench-suite:end -->
            """;

    private static final String URING_PAGE = """
            <!-- bench-suite:begin -->
            <!-- bench-suite:uring-default:begin -->
            ### io_uring, Rivulet with the default idle strategy: against Reactor Netty and plain C

            | measurement | size | unit | Rivulet io_uring median (min .. max) | Reactor Netty median (min .. max) \
            | Rivulet / Netty | Rivulet / C bound | target | met? |
            |---|---:|---|---:|---:|---:|---:|---|---|
            | streaming | 1 MiB | MB/s | 5 795 (5 069 .. 5 999) | 2 414 (2 307 .. 2 505) | 2.40 | 1.41 \
            | ≥ 1 × Netty, ≥ 0.8 × C bound | Netty yes, C bound yes |
            <!-- bench-suite:uring-default:end -->
            <!-- bench-suite:uring-blocking:begin -->
            ### io_uring, Rivulet with the blocking idle strategy: against Reactor Netty and plain C

            Not measured: io_uring is not available.
            <!-- bench-suite:uring-blocking:end -->
            <!-- bench-suite:end -->
            """;

    @Test
    void oneRowPerTargetWithEveryRatioAndTheTargetsOwnPeer() {
        Map<String, String> pages = new LinkedHashMap<>();
        pages.put("tcp", TCP_PAGE);
        pages.put("uring", URING_PAGE);

        String table = SuiteSummary.table(pages, "benchmarks");

        assertThat(table.lines()).containsExactly(
                "| path | measurement | size | Rivulet (median) | Rivulet / peer | target | met? |",
                "|---|---|---:|---:|---|---|---|",
                "| [libfabric `tcp`](benchmarks/tcp.md) | streaming send | 64 KiB | 3 614 MB/s | 0.99 × native | ≥ 0.9 "
                        + "| yes |",
                "| [libfabric `tcp`](benchmarks/tcp.md) | Reactor Netty TCP streaming | 64 B | 4 348 629 msgs/s "
                        + "| 1.48 × Netty | ≥ 1 (Rivulet / Netty) | yes |",
                "| [io_uring, Rivulet with the default idle strategy](benchmarks/uring.md) | streaming | 1 MiB "
                        + "| 5 795 MB/s | 2.40 × Netty, 1.41 × C bound | ≥ 1 × Netty, ≥ 0.8 × C bound "
                        + "| Netty yes, C bound yes |",
                "| [io_uring, Rivulet with the blocking idle strategy](benchmarks/uring.md) "
                        + "| not measured on the last run; figures on its page | | | | | |");
    }

    private static final String LOCAL_PAGE = """
            <!-- bench-suite:begin -->
            <!-- bench-suite:local:begin -->
            ### `local` (in-JVM) transport: JMH streaming send, allocation and idle CPU

            | benchmark | size | unit | Rivulet median (min .. max) | msgs/s, median (min .. max) \
            | msgs/s, mean ± JMH error (99.9 %) | allocated per message (`gc.alloc.rate.norm`) | target | met? |
            |---|---:|---|---:|---:|---:|---:|---|---|
            | `stream` | 64 B | ns/msg | 126.4 (125.6 .. 131.5) | 7 912 791 (7 606 982 .. 7 959 677) \
            | 7 817 857 ± 624 996 | 1.54 ± 0.05 B | ≤ 25 ns/msg | **no** |
            | `stream` | 4 KiB | ns/msg | 279.8 (272.0 .. 289.0) | 3 574 115 (3 460 229 .. 3 676 581) \
            | 3 571 830 ± 300 144 | 1.42 ± 0.12 B | — |  |
            <!-- bench-suite:local:end -->
            <!-- bench-suite:end -->
            """;

    @Test
    void theLocalEnginesTimePerMessageStandsBesideTheTransportsWithoutAPeer() {
        String table = SuiteSummary.table(Map.of("local", LOCAL_PAGE), "benchmarks");

        assertThat(table.lines().skip(2)).containsExactly("| [`local` (in-JVM) transport](benchmarks/local.md) "
                + "| `stream` | 64 B | 126.4 ns/msg | — | ≤ 25 ns/msg | **no** |");
    }

    private static final String INTERACTIONS_PAGE = """
            <!-- bench-suite:begin -->
            <!-- bench-suite:interactions:begin -->
            ### Interaction models: Rivulet over io_uring and shm:// against RSocket over TCP

            | measurement | size | unit | Rivulet median (min .. max) | RSocket TCP median (min .. max) \
            | Rivulet / RSocket | Rivulet heap per request, client; server | target | met? |
            |---|---:|---|---:|---:|---:|---:|---|---|
            | io_uring request-response 1 in flight (median round trip, lower is better) | 64 B | µs \
            | 10.4 (9.8 .. 11.0) | 26.0 (25.1 .. 27.3) | 0.40 | 350; 580 B | ≤ 0.5 × RSocket | yes |
            | io_uring request-stream | 64 KiB | MB/s | 2 100 (2 000 .. 2 200) | 1 900 (1 800 .. 2 000) | 1.11 \
            | 45; 130 B | — |  |
            | shm:// request-response 256 in flight | 4 KiB | requests/s | 131 342 (120 000 .. 140 000) \
            | 46 365 (40 000 .. 50 000) | 2.83 | 408; 536 B | ≥ 5 × RSocket | **no** |
            <!-- bench-suite:interactions:end -->
            <!-- bench-suite:end -->
            """;

    @Test
    void theInteractionModelsRowsNameTheirTransportAndModelAndLeaveTheAllocationColumnOut() {
        String table = SuiteSummary.table(Map.of("interactions", INTERACTIONS_PAGE), "benchmarks");

        assertThat(table.lines().skip(2)).containsExactly(
                "| [Interaction models](benchmarks/interactions.md) | io_uring request-response 1 in flight | 64 B "
                        + "| 10.4 µs | 0.40 × RSocket | ≤ 0.5 × RSocket | yes |",
                "| [Interaction models](benchmarks/interactions.md) | shm:// request-response 256 in flight | 4 KiB "
                        + "| 131 342 requests/s | 2.83 × RSocket | ≥ 5 × RSocket | **no** |");
    }

    @Test
    void rewritingTheSummaryKeepsTheTextAroundItsTable(@TempDir Path dir) throws Exception {
        Path pages = Files.createDirectories(dir.resolve("benchmarks"));
        Files.writeString(pages.resolve("tcp.md"), TCP_PAGE);
        Path summary = Files.writeString(dir.resolve("benchmarks.md"),
                "# Benchmarks\n\nBefore.\n\n" + SuiteSummary.BEGIN + "\nold rows\n" + SuiteSummary.END + "\n\nAfter.\n");

        SuiteSummary.update(summary, pages);
        String once = Files.readString(summary);
        SuiteSummary.update(summary, pages);

        assertThat(Files.readString(summary)).isEqualTo(once);
        assertThat(once).startsWith("# Benchmarks\n\nBefore.\n\n" + SuiteSummary.BEGIN + "\n| path |")
                .endsWith(SuiteSummary.END + "\n\nAfter.\n").doesNotContain("old rows")
                .contains("| 0.99 × native |");
    }

    /** The committed summary is exactly what {@code bin/bench --render} makes of the committed detail pages. */
    @Test
    void committedSummaryIsGeneratedFromTheCommittedDetailPages() throws Exception {
        Path root = SuiteOptions.findRepoRoot();
        String committed = Files.readString(root.resolve("docs/benchmarks.md"));

        String table = SuiteSummary.table(SuiteSummary.read(root.resolve("docs/benchmarks")), "benchmarks");

        assertThat(SuiteSummary.updated(committed, table)).isEqualTo(committed);
    }
}
