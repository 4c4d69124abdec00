package dev.rivulet.samples.bench.suite;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.spi.TransportProvider;
import dev.rivulet.samples.bench.fabric.FabricBenchCli;
import dev.rivulet.samples.bench.suite.ChartPlan.Bar;
import dev.rivulet.samples.bench.suite.ChartPlan.Line;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One libfabric provider with {@link FabricBenchCli}: Rivulet busy-polling (the CLI's default, as the native program
 * polls) against the native C libfabric program and Reactor Netty. {@code compatibility}: the ratios are reported
 * without targets ({@code sockets}, deprecated upstream, whose provider thread decides its numbers).
 */
record FabricBench(String provider, boolean compatibility) implements Bench {

    @Override
    public String id() {
        return provider;
    }

    @Override
    public String transport() {
        return provider;
    }

    @Override
    public String name() {
        return "libfabric " + provider;
    }

    @Override
    public String title() {
        return "libfabric `" + provider + "`" + (compatibility ? " (compatibility run, no targets)" : "")
                + ": Rivulet against native libfabric and Reactor Netty";
    }

    @Override
    public Optional<String> unavailable() {
        Optional<TransportProvider> p = Transports.provider("libfabric");
        if (p.isEmpty()) {
            return Optional.of("no libfabric transport provider on the class path");
        }
        if (!p.get().availability().available()) {
            return Optional.of("libfabric is unavailable: " + p.get().availability().reason());
        }
        if (!Files.exists(Path.of("/usr/include/rdma/fabric.h"))) {
            return Optional.of("libfabric's headers (libfabric-dev) are not installed, so the native baseline cannot "
                    + "be compiled");
        }
        Optional<String> cc = Bench.missingCompiler();
        if (cc.isPresent()) {
            return cc;
        }
        // Whether fi_getinfo offers this provider is only known by asking it: open a transport on it and close it.
        try {
            Transport t = Transports.open("libfabric", TransportConfig.defaults().option("fabric.provider", provider));
            t.dispose();
            return Optional.empty();
        } catch (RuntimeException e) {
            return Optional.of("libfabric provider `" + provider + "` cannot be opened: " + e.getMessage());
        }
    }

    @Override
    public BenchReport run(SuiteOptions o) throws Exception {
        List<String> args = new ArrayList<>(List.of("--provider", provider));
        if (compatibility) {
            args.add("--no-targets");
        }
        args.addAll(o.cliArgs());
        CliOutputs out = CliOutputs.in(o.work(), id());
        CliRun.run(FabricBenchCli.class, List.of(), out.appendTo(args), o.repoRoot());
        return new BenchReport(id(), name(), title(), about(), out.readResults(), out.readTable(),
                CliRun.display(FabricBenchCli.class, List.of(), args), o.reproduce(transport()), charts());
    }

    private String about() {
        String entry = switch (provider) {
            case "tcp" -> "`tcp;ofi_rxm` over loopback";
            case "shm" -> "shared memory between two processes";
            default -> "`" + provider + "` over loopback, deprecated upstream, with a progress thread of its own";
        };
        return "Rivulet over libfabric's `" + provider + "` provider (" + entry + ") between two JVMs, busy-polling "
                + "while it measures, against the native C program `fabric_bench.c` on the same provider and Reactor "
                + "Netty TCP (64-byte frames), measured alternately in one invocation of `FabricBenchCli`.";
    }

    private ChartPlan charts() {
        // On shm Rivulet posts plain fi_write; on the others every put asks for FI_DELIVERY_COMPLETE, so that is the
        // native write it is compared with (as the CLI's table does).
        Line nativePut = provider.equals("shm") ? new Line("native fi_write", "native", "write", true)
                : new Line("native fi_writemsg(FI_DELIVERY_COMPLETE)", "native", "write-dc", true);
        return new ChartPlan.Transport(List.of(
                new Line("Rivulet send(Publisher)", "rivulet", "stream", false),
                new Line("native fi_send", "native", "stream", false),
                new Line("Rivulet put(Publisher)", "rivulet", "write", true),
                nativePut,
                new Line("Reactor Netty TCP (64 B frames)", "netty", "netty", false)),
                List.of(new Bar("Rivulet", "rivulet"), new Bar("native libfabric", "native")));
    }
}
