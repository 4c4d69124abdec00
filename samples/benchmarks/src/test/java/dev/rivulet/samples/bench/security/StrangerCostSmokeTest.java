package dev.rivulet.samples.bench.security;

import dev.rivulet.core.Transports;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link StrangerCostCli} end to end at a tiny scale: its listener JVM, strangers through and short of the handshake,
 * and the table. Its numbers mean nothing at this scale; that every row was measured does.
 */
class StrangerCostSmokeTest {

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void tinyRunReportsBothRowsOfATransport(@TempDir Path tmp) throws Exception {
        Assumptions.assumeTrue(Transports.providers().stream().anyMatch(p -> p.name().equals("io_uring")
                && p.availability().available()), "io_uring is not available here");
        Path report = tmp.resolve("stranger.md");
        StrangerCostCli.main(new String[]{"--transports", "uring", "--connections", "5", "--silent", "40",
                "--report", report.toString()});
        String table = Files.readString(report);
        assertThat(table).contains("| io_uring | no |", "| io_uring | yes |");
        assertThat(table.lines().filter(l -> l.startsWith("| io_uring | no |")).findFirst().orElseThrow())
                .contains("KiB", "ms (idle listener:");
    }
}
