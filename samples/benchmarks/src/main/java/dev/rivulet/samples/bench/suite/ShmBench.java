package dev.rivulet.samples.bench.suite;

import dev.rivulet.samples.bench.shm.ShmBenchCli;
import dev.rivulet.samples.bench.suite.ChartPlan.Bar;
import dev.rivulet.samples.bench.suite.ChartPlan.Line;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Rivulet's own shared-memory transport ({@code shm://}) with {@link ShmBenchCli}: against Aeron IPC, Rivulet on
 * libfabric's {@code shm} provider (which the suite's {@code shm} block measures against native libfabric) and a
 * single-thread copy. Selected with {@code --only rivulet-shm}.
 */
record ShmBench() implements Bench {

    @Override
    public String id() {
        return "rivulet-shm";
    }

    @Override
    public String transport() {
        return "rivulet-shm";
    }

    @Override
    public String name() {
        return "Rivulet shm://";
    }

    @Override
    public String title() {
        return "Rivulet `shm://`: against Aeron IPC, Rivulet on libfabric `shm` and memcpy";
    }

    @Override
    public Optional<String> unavailable() {
        // Without gcc only the C copy is left out (the CLI says so); libfabric's shm likewise.
        return Bench.providerUnavailable("shm", "shm://");
    }

    @Override
    public BenchReport run(SuiteOptions o) throws Exception {
        List<String> args = new ArrayList<>(o.cliArgs());
        CliOutputs out = CliOutputs.in(o.work(), id());
        CliRun.run(ShmBenchCli.class, List.of(), out.appendTo(args), o.repoRoot());
        return new BenchReport(id(), name(), title(), about(), out.readResults(), out.readTable(),
                CliRun.display(ShmBenchCli.class, List.of(), args), o.reproduce(transport()), charts());
    }

    private static String about() {
        return "Rivulet over its own shared-memory transport (`shm://NAME`: rings and a staging pool in a shared "
                + "file, puts into a granted window the client maps) between two JVMs, busy-polling while it "
                + "measures, against Aeron IPC (`aeron:ipc`, embedded media driver, publisher and subscriber "
                + "busy-spinning) and Rivulet over "
                + "libfabric's `shm` provider between the same two JVMs, and a single-thread copy between two buffers "
                + "(`MemorySegment.copy`, and C `memcpy`) as the ceiling for puts, in rotating order in one "
                + "invocation of `ShmBenchCli`.";
    }

    private static ChartPlan charts() {
        return new ChartPlan.Transport(List.of(
                new Line("Rivulet shm:// send(Publisher)", "rivulet", "stream", false),
                new Line("Rivulet libfabric shm send(Publisher)", "fabric-shm", "stream", false),
                new Line("Aeron IPC offer / tryClaim", "aeron", "stream", false),
                new Line("Rivulet shm:// put(Publisher)", "rivulet", "put", true),
                new Line("Rivulet libfabric shm put(Publisher)", "fabric-shm", "put", true),
                new Line("memcpy (MemorySegment.copy)", "memcpy", "put", true),
                new Line("memcpy (C)", "memcpy-c", "put", true)),
                List.of(new Bar("Rivulet shm://", "rivulet"), new Bar("Rivulet libfabric shm", "fabric-shm"),
                        new Bar("Aeron IPC", "aeron")));
    }
}
