package dev.rivulet.samples.bench.suite;

import dev.rivulet.core.Transports;
import dev.rivulet.core.spi.TransportProvider;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** One transport configuration the suite measures: whether it can run here, and running it. */
sealed interface Bench permits FabricBench, ShmBench, UringBench, InteractionBench, LocalBench {

    /** Short name for files and markers: "tcp", "rivulet-shm", "uring-default", "interactions", "local". */
    String id();

    /** The {@code --only} name that selects it: "tcp", "rivulet-shm", "uring", "interactions", "local". */
    String transport();

    /** Short name for chart titles: "libfabric tcp", "io_uring, default idle strategy". */
    String name();

    /** The heading of its part of the doc section. */
    String title();

    /** Why it cannot run on this machine, empty when it can. */
    Optional<String> unavailable();

    BenchReport run(SuiteOptions o) throws Exception;

    /** What {@code o} selects, in the suite's order. */
    static List<Bench> plan(SuiteOptions o) {
        List<Bench> all = new ArrayList<>();
        all.add(new FabricBench("tcp", false));
        all.add(new FabricBench("shm", false));
        all.add(new ShmBench());
        all.add(new FabricBench("sockets", true));
        all.add(new UringBench("default"));
        all.add(new UringBench("spin"));
        all.add(new UringBench("blocking"));
        all.add(new InteractionBench());
        all.add(new LocalBench());
        return all.stream().filter(b -> o.runs(b.transport())).toList();
    }

    /**
     * Why the transport provider {@code provider} cannot run here ({@code name} as the reason calls it: "shm://"),
     * empty when it can.
     */
    static Optional<String> providerUnavailable(String provider, String name) {
        Optional<TransportProvider> p = Transports.provider(provider);
        if (p.isEmpty()) {
            return Optional.of("no " + name + " transport provider on the class path");
        }
        if (!p.get().availability().available()) {
            return Optional.of(name + " is unavailable: " + p.get().availability().reason());
        }
        return Optional.empty();
    }

    /** Why the native baselines cannot be compiled here ({@code gcc} missing), empty when they can. */
    static Optional<String> missingCompiler() {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "gcc"))) {
                return Optional.empty();
            }
        }
        return Optional.of("gcc is not installed, so the native baseline cannot be compiled (bin/bench installs it)");
    }
}
