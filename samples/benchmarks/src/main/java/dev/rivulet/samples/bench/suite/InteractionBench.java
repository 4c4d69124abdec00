package dev.rivulet.samples.bench.suite;

import dev.rivulet.samples.bench.interaction.InteractionBenchCli;
import dev.rivulet.samples.bench.suite.ChartPlan.Bar;
import dev.rivulet.samples.bench.suite.ChartPlan.Line;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The interaction models with {@link InteractionBenchCli}: Rivulet's request-response and request-stream over
 * io_uring and {@code shm://} against RSocket-java over TCP. Selected with {@code --only interactions}.
 */
record InteractionBench() implements Bench {

    @Override
    public String id() {
        return "interactions";
    }

    @Override
    public String transport() {
        return "interactions";
    }

    @Override
    public String name() {
        return "Interaction models";
    }

    @Override
    public String title() {
        return "Interaction models: Rivulet over io_uring and shm:// against RSocket over TCP";
    }

    @Override
    public Optional<String> unavailable() {
        return Bench.providerUnavailable("io_uring", "io_uring")
                .or(() -> Bench.providerUnavailable("shm", "shm://"));
    }

    @Override
    public BenchReport run(SuiteOptions o) throws Exception {
        List<String> args = new ArrayList<>(o.cliArgs());
        CliOutputs out = CliOutputs.in(o.work(), id());
        CliRun.run(InteractionBenchCli.class, List.of(), out.appendTo(args), o.repoRoot());
        return new BenchReport(id(), name(), title(), about(), out.readResults(), out.readTable(),
                CliRun.display(InteractionBenchCli.class, List.of(), args), o.reproduce(transport()), charts());
    }

    private static String about() {
        return "Rivulet's interaction models (`Interactions.client` / `Interactions.server` on one endpoint) over "
                + "io_uring (`uring://127.0.0.1`) and over `shm://` between two JVMs, against RSocket-java 1.1.5 "
                + "over its TCP transport (Reactor Netty, native epoll) between the same two JVMs: request-response "
                + "with one request in flight and with 256, at 64 B and 4 KiB, and one request-stream of 64 KiB "
                + "payloads, in rotating order in one invocation of `InteractionBenchCli`.";
    }

    private static ChartPlan charts() {
        return new ChartPlan.Transport(List.of(
                new Line("Rivulet io_uring, 256 requests in flight", "uring", "rr256", false),
                new Line("Rivulet shm://, 256 requests in flight", "shm", "rr256", false),
                new Line("RSocket TCP, 256 requests in flight", "rsocket", "rr256", false),
                new Line("Rivulet io_uring request-stream", "uring", "stream", true),
                new Line("Rivulet shm:// request-stream", "shm", "stream", true),
                new Line("RSocket TCP request-stream", "rsocket", "stream", true)),
                List.of(new Bar("Rivulet io_uring", "uring"), new Bar("Rivulet shm://", "shm"),
                        new Bar("RSocket TCP", "rsocket")));
    }
}
