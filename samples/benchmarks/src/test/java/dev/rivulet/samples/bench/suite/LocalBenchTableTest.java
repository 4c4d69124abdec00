package dev.rivulet.samples.bench.suite;

import dev.rivulet.samples.bench.Results;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The local engine's table: one row per benchmark method, parameters and size, with the time per message. */
class LocalBenchTableTest {

    @Test
    void modeNamesTheMethodAndEveryParameterButTheSize() {
        assertThat(LocalBench.jmhMode("dev.rivulet.samples.bench.LocalStreamingBenchmark.stream", Map.of()))
                .isEqualTo("jmh-stream");
        assertThat(LocalBench.jmhMode("dev.rivulet.samples.bench.LocalStreamingBenchmark.claim",
                Map.of("api", "claim"))).isEqualTo("jmh-claim api=claim");
        assertThat(LocalBench.benchmarkName("jmh-claim api=claim")).isEqualTo("`claim api=claim`");
    }

    @Test
    void everyBenchmarkGetsItsRowsAndTheTargetIsJudgedAt64Bytes() {
        Results r = new Results();
        for (double rate : new double[]{40e6, 50e6, 45e6}) {
            r.add("rivulet", "jmh-stream", 64, Map.of("msgs_per_s", Double.toString(rate / 5),
                    "alloc_b_per_msg", "1.5"));
            r.add("rivulet", "jmh-stream", 4096, Map.of("msgs_per_s", Double.toString(rate / 10),
                    "alloc_b_per_msg", "1.5"));
            r.add("rivulet", "jmh-claim", 64, Map.of("msgs_per_s", Double.toString(rate),
                    "alloc_b_per_msg", "0.0"));
        }

        String table = LocalBench.table(r, LocalBench.QUICK);

        // benchmark | size | unit | time per message | rate | JMH's mean and error | allocation | target | met?
        assertThat(table.lines().filter(l -> l.startsWith("| `")).map(l -> l.split(" \\| ", -1)))
                .satisfiesExactly(
                        row -> assertThat(row).startsWith("| `stream`", "64 B", "ns/msg", "111.1 (100.0 .. 125.0)",
                                "9 000 000 (8 000 000 .. 10 000 000)").endsWith("1.50 ± 0.00 B", "≤ 25 ns/msg",
                                "**no** |"),
                        row -> assertThat(row).startsWith("| `stream`", "4 KiB", "ns/msg", "222.2 (200.0 .. 250.0)")
                                .endsWith("—", " |"),
                        row -> assertThat(row).startsWith("| `claim`", "64 B", "ns/msg", "22.2 (20.0 .. 25.0)")
                                .endsWith("0.00 ± 0.00 B", "≤ 25 ns/msg", "yes |"));
    }
}
