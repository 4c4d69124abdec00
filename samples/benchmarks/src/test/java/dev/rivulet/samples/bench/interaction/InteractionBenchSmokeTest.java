package dev.rivulet.samples.bench.interaction;

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
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link InteractionBenchCli} end to end at a tiny scale: its two node JVMs, Rivulet on both transports and RSocket,
 * every measurement and the table. Its numbers mean nothing; that every implementation measured and reported does.
 */
class InteractionBenchSmokeTest {

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void tinyRunReportsEveryMeasurementOfEveryImplementation(@TempDir Path tmp) throws Exception {
        Assumptions.assumeTrue(available("io_uring") && available("shm"), "io_uring or shm:// is not available here");
        Path results = tmp.resolve("interactions.tsv");
        Path report = tmp.resolve("interactions.md");

        InteractionBenchCli.main(new String[]{"--runs", "1", "--no-quiet-gate", "--scale", "0.01",
                "--results", results.toString(), "--report", report.toString()});

        Results r = Results.read(results);
        for (String impl : List.of(InteractionBenchCli.URING, InteractionBenchCli.SHM, InteractionBenchCli.RSOCKET)) {
            assertThat(r.sizes(impl, "pingpong")).as(impl).containsExactly(64, 4096);
            assertThat(r.sizes(impl, "rr256")).as(impl).containsExactly(64, 4096);
            assertThat(r.sizes(impl, "stream")).as(impl).containsExactly(65536);
        }
        String table = Files.readString(report);
        assertThat(table).contains("| Rivulet median (min .. max) | RSocket TCP median (min .. max) |",
                "Targets met:");
        for (String transport : List.of("io_uring", "shm://")) {
            assertThat(table.lines().filter(l -> l.startsWith("| " + transport + " request-"))).as(transport)
                    .hasSize(InteractionBenchCli.TESTS.size());
        }
    }

    private static boolean available(String name) {
        Optional<TransportProvider> p = Transports.provider(name);
        return p.isPresent() && p.get().availability().available();
    }
}
