package dev.rivulet.gpu;

import dev.rivulet.gpu.bench.GpuStagingBench;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The benchmark runs and prints its table (no timing is asserted: that is for the benchmark's reader). */
class GpuStagingBenchTest {

    @Test
    void runsWithTheStandInAndPrintsATable() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        List<GpuStagingBench.Row> rows = GpuStagingBench.run(new String[]{"--memory", "standin", "--sizes", "1M,3M",
                "--chunk", "256K", "--iterations", "1", "--warmup", "0"}, new PrintStream(bytes, true,
                StandardCharsets.UTF_8));
        String out = bytes.toString(StandardCharsets.UTF_8);
        assertThat(rows).hasSize(2);
        assertThat(rows).allSatisfy(r -> {
            assertThat(r.staged()).isPositive();
            assertThat(r.hostToHost()).isPositive();
            assertThat(r.hostToHostWarm()).isPositive();
        });
        assertThat(out).contains("| 1 MiB |").contains("| 3 MiB |").contains("memory: host-stand-in");
    }

    @Test
    void refusesAnUnknownArgument() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        assertThat(GpuStagingBench.run(new String[]{"--bogus", "1"}, new PrintStream(bytes, true,
                StandardCharsets.UTF_8))).isEmpty();
        assertThat(bytes.toString(StandardCharsets.UTF_8)).contains("unknown argument --bogus");
    }
}
