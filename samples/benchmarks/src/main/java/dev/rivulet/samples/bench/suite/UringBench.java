package dev.rivulet.samples.bench.suite;

import dev.rivulet.samples.bench.suite.ChartPlan.Bar;
import dev.rivulet.samples.bench.suite.ChartPlan.Line;
import dev.rivulet.samples.bench.uring.UringBenchCli;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * io_uring with {@link UringBenchCli} in one of its idle modes ("default": Rivulet's default idle strategy; "spin":
 * busy-polling while it measures; "blocking": spins, then sleeps until a completion) against Reactor Netty (epoll)
 * and plain C TCP programs.
 */
record UringBench(String idle) implements Bench {

    @Override
    public String id() {
        return "uring-" + idle;
    }

    @Override
    public String transport() {
        return "uring";
    }

    @Override
    public String name() {
        return "io_uring, " + idleName();
    }

    @Override
    public String title() {
        return "io_uring, Rivulet " + (idle.equals("spin") ? "busy-polling while it measures"
                : "with the " + idleName()) + ": against Reactor Netty and plain C";
    }

    private String idleName() {
        return switch (idle) {
            case "spin" -> "busy-polling";
            case "blocking" -> "blocking idle strategy";
            default -> "default idle strategy";
        };
    }

    @Override
    public Optional<String> unavailable() {
        return Bench.providerUnavailable("io_uring", "io_uring").or(Bench::missingCompiler);
    }

    @Override
    public BenchReport run(SuiteOptions o) throws Exception {
        List<String> args = new ArrayList<>(List.of("--idle", idle));
        args.addAll(o.cliArgs());
        CliOutputs out = CliOutputs.in(o.work(), id());
        CliRun.run(UringBenchCli.class, List.of(), out.appendTo(args), o.repoRoot());
        return new BenchReport(id(), name(), title(), about(), out.readResults(), out.readTable(),
                CliRun.display(UringBenchCli.class, List.of(), args), o.reproduce(transport()), charts());
    }

    private String about() {
        return "Rivulet over io_uring (`uring://127.0.0.1`, " + (idle.equals("spin")
                ? "progress threads busy-polling during each Rivulet measurement"
                : "the " + idleName()) + ") between two JVMs, Reactor Netty TCP (native epoll) between the "
                + "same two JVMs, and the plain C TCP program `tcp_bench.c` (one `send` per message, and at the bound: "
                + "256 KiB writes, busy-polling `recv`), in rotating order in one invocation of `UringBenchCli`.";
    }

    private static ChartPlan charts() {
        return new ChartPlan.Transport(List.of(
                new Line("Rivulet io_uring", "rivulet", "stream", false),
                new Line("Reactor Netty (epoll)", "netty", "stream", false),
                new Line("plain C TCP", "native", "stream", false),
                new Line("plain C, 256 KiB writes", "native-bound", "stream", true)),
                List.of(new Bar("Rivulet io_uring", "rivulet"), new Bar("Reactor Netty", "netty"),
                        new Bar("plain C", "native"), new Bar("plain C, busy-poll", "native-bound")));
    }
}
