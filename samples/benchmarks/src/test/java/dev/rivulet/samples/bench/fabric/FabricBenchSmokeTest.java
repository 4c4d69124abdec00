package dev.rivulet.samples.bench.fabric;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** Quick checks of the libfabric benchmark's parts; the benchmark itself is not a test (docs/benchmarks.md). */
class FabricBenchSmokeTest {

    /** The native baseline compiles against the installed headers (skipped without gcc or libfabric-dev). */
    @Test
    void nativeBaselineCompiles(@TempDir Path tmp) throws Exception {
        Path source = Path.of("src/main/c/fabric_bench.c");
        assertThat(source).exists();
        Assumptions.assumeTrue(Files.exists(Path.of("/usr/include/rdma/fabric.h")),
                "libfabric-dev headers are not installed");
        Process which = new ProcessBuilder("sh", "-c", "command -v gcc").start();
        Assumptions.assumeTrue(which.waitFor() == 0, "gcc is not installed");
        Path out = tmp.resolve("fabric_bench");
        Process gcc = new ProcessBuilder("gcc", "-O2", "-Wall", "-Werror", "-o", out.toString(), source.toString(),
                "-lfabric").redirectErrorStream(true).start();
        String log = new String(gcc.getInputStream().readAllBytes());
        assertThat(gcc.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(gcc.exitValue()).as(log).isZero();
        assertThat(out).isExecutable();
    }
}
