package dev.rivulet.samples.pingpong;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.spi.Availability;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * This tool against the real {@code fi_pingpong} of the installed libfabric, over {@code tcp;ofi_rxm} on this host,
 * in both roles. Each run is bounded: {@code -T} stops the Java side when its peer goes silent, and the child process
 * is killed if it does not exit in time.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class FiPingpongInteropTest {

    private static final int ITERATIONS = 50;
    private static final Duration RUN_LIMIT = Duration.ofSeconds(60);
    private static final List<Integer> DEFAULT_SIZES = List.of(64, 256, 1024, 4096, 65536, 1048576);

    @BeforeAll
    static void requireFiPingpongAndTcp() {
        // bin/test and CI install libfabric-bin and require libfabric: there a missing tool fails the run
        Optional<String> unavailable = FiPingpong.binary().isEmpty()
                ? Optional.of("fi_pingpong is not on the PATH (Debian: apt install libfabric-bin)")
                : RdmEndpoint.unavailableReason("tcp").map(reason -> "libfabric tcp unusable here: " + reason);
        unavailable.ifPresent(reason -> Requirements.assume(Availability.no(reason), "libfabric"));
    }

    /** A single size and the default list, each with and without {@code -c}. */
    static Stream<Arguments> runs() {
        return Stream.of(
                Arguments.of(List.of("-S", "4096"), List.of(4096), false),
                Arguments.of(List.of("-S", "4096"), List.of(4096), true),
                Arguments.of(List.of(), DEFAULT_SIZES, false),
                Arguments.of(List.of(), DEFAULT_SIZES, true));
    }

    @ParameterizedTest(name = "Java server, fi_pingpong client: sizes {1}, -c {2}")
    @MethodSource("runs")
    void javaServerAgainstFiPingpongClient(List<String> sizeArgs, List<Integer> sizes, boolean check) throws Exception {
        List<String> common = common(sizeArgs, ITERATIONS, check);
        Run run = javaServerWithFiPingpongClient(common);

        assertCompleted(run, sizes, ITERATIONS);
    }

    @ParameterizedTest(name = "fi_pingpong server, Java client: sizes {1}, -c {2}")
    @MethodSource("runs")
    void fiPingpongServerAgainstJavaClient(List<String> sizeArgs, List<Integer> sizes, boolean check)
            throws Exception {
        List<String> common = common(sizeArgs, ITERATIONS, check);
        Run run = fiPingpongServerWithJavaClient(common);

        assertCompleted(run, sizes, ITERATIONS);
    }

    /**
     * {@code -S all} with checks, both ways: sizes 0 to 48 go with {@code fi_inject}, 64 and up with {@code fi_send};
     * the zero-byte messages still advance both sides' pattern counters, and 4.5 and 6 MiB messages fill the buffers.
     */
    @Test
    void everySizeWithChecksBothWays() throws Exception {
        List<String> common = common(List.of("-S", "all"), 3, true);
        List<Integer> all = SizeList.all().sizes(SizeList.MAX_DATA_MESSAGE);
        assertThat(all).startsWith(0, 1, 2, 3, 4, 6, 8).endsWith(4194304, 6291456);

        assertCompleted(javaServerWithFiPingpongClient(common), all, 3);
        assertCompleted(fiPingpongServerWithJavaClient(common), all, 3);
    }

    /**
     * The check is real: fi_pingpong without {@code -c} sends its zeroed buffer, and the Java side's {@code -c}
     * stops at the first byte of the first message, in fi_pingpong's wording.
     */
    @Test
    void dataCheckCatchesAPeerThatSendsNoPattern() throws Exception {
        int port = FiPingpong.freePort();
        PingPongOptions server = PingPongOptions.parse(
                "-p", "tcp", "-e", "rdm", "-S", "4096", "-I", "10", "-c", "-B", String.valueOf(port), "-T", "20");
        try (ExecutorService executor = Executors.newSingleThreadExecutor()) {
            CountDownLatch listening = new CountDownLatch(1);
            Future<List<RoundResult>> java = executor.submit(() -> PingPong.run(server, quiet(), quiet(),
                    p -> listening.countDown()));
            assertThat(listening.await(20, TimeUnit.SECONDS)).isTrue();
            FiPingpong c = FiPingpong.start(List.of("-p", "tcp", "-e", "rdm", "-S", "4096", "-I", "10",
                    "-P", String.valueOf(port), "127.0.0.1"));
            try {
                assertThat(java).failsWithin(RUN_LIMIT)
                        .withThrowableOfType(ExecutionException.class)
                        .havingCause()
                        .isInstanceOf(PingPongException.class)
                        .withMessage("Error at iteration=1 size=4096 byte=0");
            } finally {
                c.close(); // it waits for an answer that will not come
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** What each side printed and what the Java side returned. */
    private record Run(List<RoundResult> javaResults, String javaOutput, FiPingpongResult c) {
    }

    private record FiPingpongResult(int exitCode, String output, List<List<String>> columns) {
    }

    private static List<String> common(List<String> sizeArgs, int iterations, boolean check) {
        List<String> args = new ArrayList<>(List.of("-p", "tcp", "-e", "rdm", "-I", String.valueOf(iterations)));
        args.addAll(sizeArgs);
        if (check) {
            args.add("-c");
        }
        return args;
    }

    private static Run javaServerWithFiPingpongClient(List<String> common) throws Exception {
        int port = FiPingpong.freePort();
        List<String> javaArgs = new ArrayList<>(common);
        javaArgs.addAll(List.of("-B", String.valueOf(port), "-T", "30"));
        PingPongOptions options = PingPongOptions.parse(javaArgs.toArray(String[]::new));
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try (ExecutorService executor = Executors.newSingleThreadExecutor();
             PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
            CountDownLatch listening = new CountDownLatch(1);
            Future<List<RoundResult>> java = executor.submit(() -> PingPong.run(options, out, quiet(),
                    p -> listening.countDown()));
            assertThat(listening.await(20, TimeUnit.SECONDS)).as("Java server listening").isTrue();
            List<String> clientArgs = new ArrayList<>(common);
            clientArgs.addAll(List.of("-P", String.valueOf(port), "127.0.0.1"));
            try (FiPingpong c = FiPingpong.start(clientArgs)) {
                List<RoundResult> results = java.get(RUN_LIMIT.toSeconds(), TimeUnit.SECONDS);
                int exit = c.awaitExit(Duration.ofSeconds(30));
                return new Run(results, printed.toString(StandardCharsets.UTF_8),
                        new FiPingpongResult(exit, c.output(), c.resultColumns()));
            }
        }
    }

    private static Run fiPingpongServerWithJavaClient(List<String> common) throws Exception {
        int port = FiPingpong.freePort();
        List<String> serverArgs = new ArrayList<>(common);
        serverArgs.addAll(List.of("-B", String.valueOf(port)));
        // Started first, but not waited for: the Java client retries a refused control connection for up to -T.
        try (FiPingpong c = FiPingpong.start(serverArgs)) {
            List<String> javaArgs = new ArrayList<>(common);
            javaArgs.addAll(List.of("-P", String.valueOf(port), "-T", "30", "127.0.0.1"));
            ByteArrayOutputStream printed = new ByteArrayOutputStream();
            List<RoundResult> results;
            try (PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8)) {
                results = PingPong.run(PingPongOptions.parse(javaArgs.toArray(String[]::new)), out, quiet(),
                        p -> { });
            }
            int exit = c.awaitExit(Duration.ofSeconds(30));
            return new Run(results, printed.toString(StandardCharsets.UTF_8),
                    new FiPingpongResult(exit, c.output(), c.resultColumns()));
        }
    }

    /**
     * Both sides went through every size with every message acknowledged: the Java side's results, its table, and
     * fi_pingpong's own table and exit status.
     */
    private static void assertCompleted(Run run, List<Integer> sizes, int iterations) {
        assertThat(run.c().exitCode()).as("fi_pingpong exit status; it printed:%n%s", run.c().output()).isZero();
        assertThat(run.javaResults()).extracting(RoundResult::size).containsExactlyElementsOf(sizes);
        assertThat(run.javaResults()).allSatisfy(r -> {
            assertThat(r.iterations()).isEqualTo(iterations);
            assertThat(r.acked()).isEqualTo(iterations);
            assertThat(r.nanos()).isPositive();
        });
        List<List<String>> expected = sizes.stream()
                .map(s -> List.of(ResultTable.size(s), ResultTable.count(iterations),
                        "=" + ResultTable.count(iterations)))
                .toList();
        assertThat(run.c().columns()).as("fi_pingpong's table:%n%s", run.c().output()).isEqualTo(expected);
        assertThat(run.javaOutput().lines().toList())
                .first().isEqualTo(ResultTable.HEADER);
        assertThat(run.javaOutput().lines().skip(1).map(l -> List.of(l.trim().split("\\s+")).subList(0, 3)).toList())
                .isEqualTo(expected);
    }

    private static PrintStream quiet() {
        return new PrintStream(PrintStream.nullOutputStream(), true, StandardCharsets.UTF_8);
    }
}
