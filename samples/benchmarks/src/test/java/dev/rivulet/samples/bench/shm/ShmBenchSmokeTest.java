package dev.rivulet.samples.bench.shm;

import dev.rivulet.core.Transports;
import dev.rivulet.core.spi.TransportProvider;
import dev.rivulet.samples.bench.Results;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link ShmBenchCli} end to end at a tiny scale (well under a minute): its two node JVMs, every implementation and
 * the table. Its numbers mean nothing; that every implementation measured and reported does.
 */
class ShmBenchSmokeTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void tinyRunReportsEveryImplementation(@TempDir Path tmp) throws Exception {
        Assumptions.assumeTrue(available("shm"), "shm:// is not available here");
        boolean fabric = available("libfabric");
        Path results = tmp.resolve("shm.tsv");
        Path report = tmp.resolve("shm.md");

        ShmBenchCli.main(new String[]{"--runs", "1", "--no-quiet-gate", "--sizes", "64,65536", "--scale", "0.02",
                "--results", results.toString(), "--report", report.toString()});

        Results r = Results.read(results);
        List<String> impls = fabric ? List.of(ShmBenchCli.SHM, ShmBenchCli.FABRIC, ShmBenchCli.AERON)
                : List.of(ShmBenchCli.SHM, ShmBenchCli.AERON);
        for (String impl : impls) {
            assertThat(r.sizes(impl, "stream")).as(impl).containsExactly(64, 65536);
            assertThat(r.sizes(impl, "pingpong")).as(impl).containsExactly(64);
        }
        for (String impl : fabric ? List.of(ShmBenchCli.SHM, ShmBenchCli.FABRIC, ShmBenchCli.MEMCPY)
                : List.of(ShmBenchCli.SHM, ShmBenchCli.MEMCPY)) {
            assertThat(r.sizes(impl, "put")).as(impl).containsExactly(65536);
        }
        String table = Files.readString(report);
        assertThat(table).contains("| Rivulet shm:// median", "| Rivulet libfabric shm median", "| Aeron IPC median",
                "| memcpy median", "Targets met:");
        assertThat(rows(table, "| streaming | 64 B |")).hasSize(1);
        assertThat(rows(table, "| streaming | 64 KiB |")).hasSize(1);
        assertThat(rows(table, "| one-way latency")).hasSize(1);
        assertThat(rows(table, "| streamed puts into a granted window, then flush | 64 KiB |")).hasSize(1);
        assertThat(rows(table, "| heap allocated per message, streaming")).hasSize(2);
        // Every implementation's cell of the streaming and latency rows holds a figure (a dash marks one missing).
        for (String row : List.of("| streaming | 64 B |", "| streaming | 64 KiB |", "| one-way latency")) {
            String[] cells = rows(table, row).getFirst().split("\\|");
            assertThat(cells[4]).as(row + " shm://").doesNotContain("—");
            assertThat(cells[6]).as(row + " Aeron").doesNotContain("—");
            if (fabric) {
                assertThat(cells[5]).as(row + " libfabric shm").doesNotContain("—");
            }
        }
        String[] put = rows(table, "| streamed puts").getFirst().split("\\|");
        assertThat(put[4]).as("put shm://").doesNotContain("—");
        assertThat(put[7]).as("put memcpy").doesNotContain("—");
        // The driver's directory under /dev/shm is gone with the server.
        try (var files = Files.list(Path.of("/dev/shm"))) {
            assertThat(files.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith("rivulet-aeron-bench-")
                    && !Files.exists(Path.of("/proc", n.substring("rivulet-aeron-bench-".length()))));
        }
    }

    private static boolean available(String provider) {
        return Transports.provider(provider).map(TransportProvider::availability).map(a -> a.available())
                .orElse(false);
    }

    private static List<String> rows(String table, String start) {
        return table.lines().filter(l -> l.startsWith(start)).toList();
    }
}
