package dev.rivulet.samples.bench.fabric;

import dev.rivulet.samples.bench.ChildJvm;
import dev.rivulet.samples.bench.CliArgs;
import dev.rivulet.samples.bench.CopyGen;
import dev.rivulet.samples.bench.Machine;
import dev.rivulet.samples.bench.NativeProgram;
import dev.rivulet.samples.bench.Options;
import dev.rivulet.samples.bench.Results;
import dev.rivulet.samples.bench.Results.Spread;
import dev.rivulet.samples.bench.netty.NettyPeer;

import java.io.IOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import static dev.rivulet.samples.bench.Results.KIB;
import static dev.rivulet.samples.bench.Results.sizeName;

/**
 * Side-by-side libfabric benchmark: a native C libfabric program and Rivulet over the same provider, in one
 * invocation, each measurement repeated {@code --runs} times, medians and spread printed as a table
 * ({@code bin/bench} puts it into {@code docs/benchmarks.md} with its charts).
 *
 * <pre>
 * . bin/env.sh
 * ./mvnw -B -ntp -pl samples/benchmarks -am install -DskipTests
 * java -cp samples/benchmarks/target/benchmarks.jar dev.rivulet.samples.bench.fabric.FabricBenchCli [--provider tcp|sockets|shm]
 *      [--runs 5] [--idle spin|default] [--scale 1.0] [--sizes 64,4096,65536,1048576] [--results PATH]
 *      [--report PATH] [--no-targets]
 * </pre>
 *
 * <p>{@code --results} also writes every recorded run as a tab-separated file ({@link Results#write}) and
 * {@code --report} the table with its notes (what it prints, without the dated header) as Markdown, for
 * {@link dev.rivulet.samples.bench.suite.BenchSuite}. {@code --no-targets} reports the ratios without judging them
 * (the suite runs the deprecated {@code sockets} provider that way, as a compatibility check).
 *
 * <p>What runs where: the native baseline is {@code samples/benchmarks/src/main/c/fabric_bench.c}, compiled here with
 * {@code gcc -O2 -o target/fabric_bench src/main/c/fabric_bench.c -lfabric} (in {@code samples/benchmarks/}); each native
 * measurement is one invocation of it, which forks a server process. Rivulet runs in two further JVMs started with
 * this JVM's classpath ({@link FabricBenchNode} server and client), kept for all runs of one transport
 * configuration; Reactor Netty's TCP comparison runs between the same two JVMs. This JVM only orchestrates.
 * Every child gets {@code FI_TCP_IFACE=lo} and {@code FI_SOCKETS_IFACE=lo} (unless set already) so the providers
 * bind to loopback.
 */
public final class FabricBenchCli implements CliArgs.SideBySide {

    /** Every child gets these unless set already, so the providers bind to loopback. */
    static final Map<String, String> LOOPBACK = Map.of("FI_TCP_IFACE", "lo", "FI_SOCKETS_IFACE", "lo");

    /** One measurement kind: mode (stream, write, write-dc, pingpong, netty) at a size. */
    record Test(String mode, int size) {
        String label() {
            return switch (mode) {
                case "stream" -> "streaming send";
                case "write" -> "RMA write";
                case "pingpong" -> "ping-pong";
                case "netty" -> "Reactor Netty TCP streaming";
                default -> mode;
            };
        }
    }

    private final String provider;
    private final int runs;
    private final String idle;
    /** fabric.dataProgress of both nodes; "manual" also gives the native program -m (the same hint). */
    private final String progress;
    private final double scale;
    private final List<Integer> sizes;
    private final Set<String> modes;
    private final Path moduleDir;
    private final Results results = new Results();
    private final String commandLine;
    private final boolean rendezvous;
    private final Machine machine;
    private final String label;
    /** Rivulet's receive queue depth (the credit window its sender gets) when set; the native window otherwise. */
    private final Integer receiveDepth;
    /** Ratios are reported but not judged: the target and met? columns stay empty. */
    private final boolean noTargets;
    private NativeProgram nativeProgram;

    FabricBenchCli(Map<String, String> o, Path moduleDir, String commandLine) {
        this.provider = o.getOrDefault("provider", "tcp");
        this.runs = Integer.parseInt(o.getOrDefault("runs", "5"));
        this.idle = o.getOrDefault("idle", "spin");
        this.progress = o.getOrDefault("progress", "provider");
        this.scale = Double.parseDouble(o.getOrDefault("scale", "1.0"));
        this.sizes = CliArgs.sizes(o);
        this.modes = Set.of(o.getOrDefault("modes", "stream,write,write-each,pingpong,netty,stream-rndv")
                .split(","));
        this.moduleDir = moduleDir;
        this.commandLine = commandLine;
        this.rendezvous = !o.containsKey("no-rendezvous");
        this.machine = new Machine(!o.containsKey("no-quiet-gate"), 120, Long.MAX_VALUE); // no cap on the sum
        this.label = o.get("label");
        this.receiveDepth = o.containsKey("receive-depth") ? Integer.valueOf(o.get("receive-depth")) : null;
        this.noTargets = o.containsKey("no-targets");
        if (!List.of("tcp", "sockets", "shm").contains(provider)) {
            throw new IllegalArgumentException("--provider must be tcp, sockets or shm (the others need hardware)");
        }
        if (!progress.equals("provider") && !progress.equals("manual")) {
            throw new IllegalArgumentException("--progress must be provider or manual");
        }
        if (!idle.equals("spin") && !idle.equals("default")) {
            throw new IllegalArgumentException("--idle must be spin or default");
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = Options.parse(args, 0);
        if (o.containsKey("help")) {
            System.out.println("usage: FabricBenchCli [--provider tcp|sockets|shm] [--runs N] [--idle spin|default] "
                    + "[--scale F] [--sizes 64,4096,65536,1048576] [--no-rendezvous] "
                    + "[--no-quiet-gate] [--label TEXT] [--modes stream,write,write-each,pingpong,netty,stream-rndv] "
                    + "[--progress provider|manual] [--receive-depth N] [--results PATH] [--report PATH] "
                    + "[--no-targets]");
            return;
        }
        CliArgs.runAndReport(o, new FabricBenchCli(o, CliArgs.moduleDir("fabric_bench.c"), CliArgs.commandLine(args)));
    }

    // ============================================================================================== plan

    /** Messages (or round trips) per measurement, chosen so that one takes roughly 0.2 to 1 s here. */
    long count(String mode, int size) {
        // sockets with its progress thread takes milliseconds per round trip here: short counts
        boolean fast = !provider.equals("sockets") || progress.equals("manual");
        long n = switch (mode) {
            case "stream" -> size <= 64 ? (fast ? 200_000 : 10_000) : size <= 4 * KIB ? (fast ? 100_000 : 10_000)
                    : size <= 64 * KIB ? (fast ? 20_000 : 3_000) : (fast ? 4_500 : 200);
            case "write", "write-dc", "write-each" -> size <= 64 ? (fast ? 100_000 : 5_000) : size <= 4 * KIB ? (fast ? 50_000 : 5_000)
                    : size <= 64 * KIB ? (fast ? 20_000 : 3_000) : (fast ? 4_500 : 200);
            case "pingpong" -> fast ? 10_000 : 200;
            case "netty" -> 200_000;
            default -> throw new IllegalArgumentException(mode);
        };
        // 1 MiB over tcp gets 4 500 messages (0.7 s at 6 GB/s): with 1 500 the phase was 0.25 s and the ratio
        // wandered 0.82 .. 1.06 between invocations. shm moves data about ten times faster than tcp: four times the
        // counts keep its phases near 0.5 to 1.2 s, long enough that JIT compilation and timer granularity do not
        // decide the result.
        double providerScale = provider.equals("shm") && !mode.equals("netty") ? 4 : 1;
        return Math.max(mode.equals("pingpong") ? 20 : 10, Math.round(n * scale * providerScale));
    }

    static int window(int size) {
        return size > 64 * KIB ? 16 : 128;
    }

    static int eager(int size) {
        return Math.max(64 * KIB, size);
    }

    @Override
    public Results results() {
        return results;
    }

    @Override
    public void run() throws Exception {
        nativeProgram = NativeProgram.compile(moduleDir, "fabric_bench", "-lfabric", LOOPBACK);
        // Configurations (eager size, queue depth): everything up to 64 KiB shares the default eager size; larger
        // messages get an eager size of their own and a shallower queue. With --rendezvous (default on), larger
        // messages are also streamed with the default eager size, i.e. through Rivulet's rendezvous protocol.
        Map<List<Integer>, List<Test>> blocks = new LinkedHashMap<>();
        for (int size : sizes) {
            blocks.computeIfAbsent(List.of(eager(size), window(size)), k -> new ArrayList<>()).add(new Test("stream",
                    size));
        }
        for (int size : sizes) {
            blocks.get(List.of(eager(size), window(size))).add(new Test("write", size));
            if (size >= 64 * KIB) {
                // the same puts with one Mono each (flatMap): what the streamed put saves
                blocks.get(List.of(eager(size), window(size))).add(new Test("write-each", size));
            }
        }
        List<Test> first = blocks.computeIfAbsent(List.of(64 * KIB, 128), k -> new ArrayList<>());
        first.add(new Test("pingpong", 64));
        first.add(new Test("netty", 64));
        if (rendezvous) {
            for (int size : sizes) {
                if (size > 64 * KIB) {
                    blocks.computeIfAbsent(List.of(64 * KIB, window(size)), k -> new ArrayList<>())
                            .add(new Test("stream-rndv", size));
                }
            }
        }
        for (Map.Entry<List<Integer>, List<Test>> e : blocks.entrySet()) {
            e.getValue().removeIf(t -> !modes.contains(t.mode));
            if (e.getValue().isEmpty()) {
                continue;
            }
            runBlock(e.getKey().get(0), e.getKey().get(1), e.getValue());
        }
    }

    private void runBlock(int eager, int depth, List<Test> tests) throws Exception {
        // --receive-depth is for messages up to the default 64 KiB eager size; a block with a larger eager size gets
        // the same bytes of posted receive buffers (and never less than the window), not N buffers of its size.
        int rq = receiveDepth == null ? depth : Math.max(depth, (int) ((long) receiveDepth * 64 * KIB / eager));
        System.out.printf(Locale.ROOT, "# Rivulet configuration: fabric.eagerSize=%d, send queue depth and prefetch "
                + "%d, receive queue depth %d, idle strategy %s%n", eager, depth, rq, idle);
        List<String> common = List.of("--provider", provider, "--eager", Integer.toString(eager),
                "--depth", Integer.toString(depth), "--receive-depth", Integer.toString(rq), "--idle", idle,
                "--progress", progress);
        List<String> clientArgs = new ArrayList<>(common);
        try (ChildJvm server = ChildJvm.start(FabricBenchNode.class, "server", common, moduleDir, LOOPBACK)) {
            String[] ready = server.ready().split(" ");
            clientArgs.addAll(List.of("--address", ready[1], "--netty-port", ready[2]));
            try (ChildJvm client = ChildJvm.start(FabricBenchNode.class, "client", clientArgs, moduleDir, LOOPBACK)) {
                client.ready();
                // One untimed pass so the JIT has compiled the hot paths before the first recorded run.
                for (Test t : tests) {
                    rivulet(server, client, t, false);
                }
                for (int r = 1; r <= runs; r++) {
                    for (Test t : tests) {
                        if (t.mode.equals("netty")) {
                            machine.waitQuiet();
                            rivulet(server, client, t, true);
                            continue;
                        }
                        machine.waitQuiet();
                        if (t.mode.equals("stream-rndv") || t.mode.equals("write-each")) {
                            rivulet(server, client, t, true); // compared with the native row of the same size
                            continue;
                        }
                        boolean nativeFirst = r % 2 == 1;
                        if (nativeFirst) {
                            nativeRun(t.mode, t.size);
                        }
                        rivulet(server, client, t, true);
                        if (!nativeFirst) {
                            nativeRun(t.mode, t.size);
                        }
                        if (t.mode.equals("write")) {
                            nativeRun("write-dc", t.size);
                        }
                    }
                    System.out.println("# run " + r + "/" + runs + " of this configuration done");
                }
                client.command("quit", false);
            }
        }
    }

    private void rivulet(ChildJvm server, ChildJvm client, Test t, boolean record) throws IOException {
        String mode = t.mode.equals("stream-rndv") ? "stream" : t.mode;
        String line = CliArgs.measure(server, client, idle.equals("spin"), mode + " " + t.size + " "
                + count(mode, t.size));
        if (!line.startsWith("RESULT ")) {
            throw new IllegalStateException("rivulet " + t + " failed: " + line);
        }
        Map<String, String> m = Results.parse(line);
        if (record) {
            System.out.println(line);
            results.add(m.get("impl"), t.mode, t.size, m);
        } else {
            System.out.println("# warm-up: " + line);
        }
    }

    private void nativeRun(String mode, int size) throws Exception {
        List<String> args = new ArrayList<>(List.of("-p", provider, "-w", Integer.toString(window(size))));
        if (progress.equals("manual")) {
            args.add("-m");
        }
        if (mode.equals("write-dc")) {
            args.add("-d");
        }
        args.addAll(List.of(mode.equals("write-dc") ? "write" : mode, Integer.toString(size),
                Long.toString(count(mode, size))));
        results.add("native", mode, size, Results.parse(nativeProgram.run(args)));
    }

    // ============================================================================================== report

    private Spread spread(String impl, String mode, int size, String field) {
        return results.spread(impl, mode, size, field);
    }

    private static String fmt(double v, String unit) {
        return Results.value(v, unit);
    }

    private static String range(Spread s, String unit) {
        return s.range(unit);
    }

    /**
     * What ran, when, on what and how long it waited for the machine: the dated paragraphs printed above
     * {@link #table()}.
     */
    @Override
    public String header(double seconds) {
        StringBuilder b = new StringBuilder();
        String idleText = idle.equals("spin")
                ? "busy-polling progress threads during each Rivulet measurement (like the native program), the "
                + "default backoff between measurements"
                : "the default idle strategy (200 spins, 10 yields, then sleeps of 10 µs doubling to 10 ms, in epoll "
                + "on the completion queues' wait fds where the provider has them)";
        String entry = provider.equals("shm") ? "`shm` fi_info entry: shared memory between the two processes"
                : String.format(Locale.ROOT, "`%s` fi_info entry bound to loopback with `FI_%s_IFACE=lo`",
                        provider.equals("tcp") ? "tcp;ofi_rxm" : provider, provider.toUpperCase(Locale.ROOT));
        if (!progress.equals("provider")) {
            entry += ", both programs asking for `FI_PROGRESS_" + progress.toUpperCase(Locale.ROOT) + "` data "
                    + "progress (`fabric.dataProgress=" + progress + "`, the C program's `-m`)";
        }
        b.append(String.format(Locale.ROOT, "Provider `%s` (%s), %s, %d recorded runs of each measurement after one "
                        + "untimed Rivulet warm-up pass; whole invocation %.0f s. Taken %s on %d vCPUs, load average "
                        + "before/after %s. Command: `FabricBenchCli %s`.%n%n",
                provider, entry, idleText, runs, seconds, LocalDate.now(), Runtime.getRuntime().availableProcessors(),
                machine.loadAverages(),
                commandLine));
        b.append(machine.provenance(label, moduleDir));
        return b.toString();
    }

    /** The result table and the notes under it (allocation, counts, targets), without dates. */
    @Override
    public String table() {
        StringBuilder b = new StringBuilder();
        b.append("| measurement | size | unit | native median | native min .. max | Rivulet median "
                + "| Rivulet min .. max | Rivulet / native | target | met? |\n");
        b.append("|---|---:|---|---:|---:|---:|---:|---:|---|---|\n");
        List<String> missed = new ArrayList<>();
        // Where Rivulet posts puts with FI_DELIVERY_COMPLETE (tcp, sockets: the only way a rejected key is reported,
        // and what makes flush mean remote completion), the like-for-like baseline is the native program's
        // delivery-complete write; the plain-write rows stay in the table for reference, without a target.
        boolean putsDeliveryComplete = !provider.equals("shm");
        for (String mode : List.of("stream", "write", "write-dc")) {
            for (int size : modes.contains(mode.equals("write-dc") ? "write" : mode) ? sizes : List.<Integer>of()) {
                String unit = size <= 4 * KIB ? "msgs/s" : "MB/s";
                String field = unit.equals("msgs/s") ? "msgs_per_s" : "mb_per_s";
                Spread n = spread("native", mode, size, field);
                Spread r = spread("rivulet", mode.equals("write-dc") ? "write" : mode, size, field);
                if (n == null || r == null || (mode.equals("write-dc") && !putsDeliveryComplete)) {
                    continue;
                }
                double ratio = r.median() / n.median();
                String target = "—";
                String met = "";
                if (mode.equals("write") && putsDeliveryComplete) {
                    target = size >= 64 * KIB ? "— (plain writes; see the delivery-complete rows)" : "—";
                } else if (size >= 64 * KIB) {
                    target = "≥ 0.9";
                    met = ratio >= 0.9 ? "yes" : "**no**";
                } else if (mode.equals("stream") && size == 64) {
                    target = "> 1 (coalescing)";
                    met = ratio > 1 ? "yes" : "**no**";
                }
                if (noTargets) {
                    target = "—";
                    met = "";
                }
                if (met.startsWith("**")) {
                    missed.add((mode.equals("write-dc") ? "write (vs delivery-complete)" : mode) + " "
                            + sizeName(size));
                }
                String label = mode.equals("write-dc")
                        ? "RMA write against native `fi_writemsg(FI_DELIVERY_COMPLETE)`, how Rivulet posts puts on "
                        + "this provider (same Rivulet figures)"
                        : mode.equals("write") && putsDeliveryComplete
                        ? "RMA write against native plain `fi_write` (weaker completion: see below)"
                        : new Test(mode, size).label();
                b.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %.2f | %s | %s |%n",
                        label, sizeName(size), unit, fmt(n.median(), unit), range(n, unit),
                        fmt(r.median(), unit), range(r, unit), ratio, target, met));
            }
        }
        for (int size : sizes) {
            Spread n = spread("native", "write", size, "mb_per_s");
            Spread r = spread("rivulet", "write-each", size, "mb_per_s");
            if (n != null && r != null) {
                b.append(String.format(Locale.ROOT, "| RMA write, one `put(local, remote)` Mono per put through "
                                + "`flatMap` (same native figures) | %s | MB/s | %s | %s | %s | %s | %.2f | — | |%n",
                        sizeName(size), fmt(n.median(), "MB/s"), range(n, "MB/s"), fmt(r.median(), "MB/s"),
                        range(r, "MB/s"), r.median() / n.median()));
            }
        }
        for (int size : sizes) {
            Spread n = spread("native", "stream", size, "mb_per_s");
            Spread r = spread("rivulet", "stream-rndv", size, "mb_per_s");
            if (n != null && r != null) {
                double ratio = r.median() / n.median();
                b.append(String.format(Locale.ROOT, "| streaming send with the default 64 KiB eager size (Rivulet's "
                                + "rendezvous: fi_read of a per-message registration; same native figures) | %s | MB/s "
                                + "| %s | %s | %s | %s | %.2f | %s | %s |%n", sizeName(size), fmt(n.median(), "MB/s"),
                        range(n, "MB/s"), fmt(r.median(), "MB/s"), range(r, "MB/s"), ratio,
                        noTargets ? "—" : "(≥ 0.9)",
                        noTargets ? "" : ratio >= 0.9 ? "yes" : "no (not a headline row)"));
            }
        }
        Spread np = spread("native", "pingpong", 64, "rtt_median_us");
        Spread rp = spread("rivulet", "pingpong", 64, "rtt_median_us");
        if (np != null && rp != null) {
            double ratio = rp.median() / np.median();
            boolean ok = ratio <= 1.3;
            if (!ok && !noTargets) {
                missed.add("ping-pong 64 B");
            }
            b.append(String.format(Locale.ROOT, "| ping-pong, median round trip (one way = half) | 64 B | µs | %s | "
                            + "%s | %s | %s | %.2f | %s | %s |%n", fmt(np.median(), "us"), range(np, "us"),
                    fmt(rp.median(), "us"), range(rp, "us"), ratio, noTargets ? "—" : "≤ 1.3",
                    noTargets ? "" : ok ? "yes" : "**no**"));
        }
        Spread nn = spread("netty", "netty", 64, "msgs_per_s");
        Spread r64 = spread("rivulet", "stream", 64, "msgs_per_s");
        if (nn != null && r64 != null) {
            double ratio = r64.median() / nn.median();
            boolean ok = ratio >= 1.0;
            if (!ok && !noTargets) {
                missed.add("64 B streaming vs Reactor Netty");
            }
            b.append(String.format(Locale.ROOT, "| Reactor Netty TCP streaming (64-byte frames) in place of "
                            + "native | 64 B | msgs/s | %s | %s | %s | %s | %.2f | %s | %s |%n",
                    fmt(nn.median(), "msgs/s"), range(nn, "msgs/s"), fmt(r64.median(), "msgs/s"),
                    range(r64, "msgs/s"), ratio, noTargets ? "—" : "≥ 1 (Rivulet / Netty)",
                    noTargets ? "" : ok ? "yes" : "**no**"));
        }
        b.append('\n');
        Spread pairedPing = results.pairedRatio("rivulet", "native", "pingpong", 64, "rtt_median_us");
        if (pairedPing != null) {
            // The round trip is bimodal on this VM (it depends on where the host runs the two vCPUs at the moment),
            // and the mode can change between measurements: the ratio of each back-to-back pair is the steadier view.
            b.append(String.format(Locale.ROOT, "Ping-pong paired by run (native and Rivulet measured back to back, "
                            + "Rivulet / native of each pair): median **%.2f**, min .. max %.2f .. %.2f over %d pairs."
                            + "%n%n", pairedPing.median(), pairedPing.min(), pairedPing.max(), pairedPing.n()));
        }
        if (putsDeliveryComplete && modes.contains("write")) {
            b.append("Rivulet's puts on this provider are posted with `FI_DELIVERY_COMPLETE`: a put completes once "
                    + "the data is at the target, and a rejected key is reported as an error (with a plain write "
                    + "`tcp;ofi_rxm` drops the connection and the data without failing the write). The native "
                    + "program's plain `fi_write` completes earlier and reports no such error, so its rows are "
                    + "for reference and the delivery-complete rows carry the target.\n\n");
        } else if (modes.contains("write")) {
            // Native writes with FI_DELIVERY_COMPLETE, for reference: shm's plain write is already synchronous.
            StringBuilder dc = new StringBuilder();
            for (int size : sizes) {
                String unit = size <= 4 * KIB ? "msgs/s" : "MB/s";
                String field = unit.equals("msgs/s") ? "msgs_per_s" : "mb_per_s";
                Spread d = spread("native", "write-dc", size, field);
                Spread r = spread("rivulet", "write", size, field);
                if (d != null && r != null) {
                    dc.append(String.format(Locale.ROOT, "%s %s %s (min .. max %s; Rivulet / this %.2f); ",
                            sizeName(size), fmt(d.median(), unit), unit, range(d, unit), r.median() / d.median()));
                }
            }
            if (!dc.isEmpty()) {
                b.append("Native `fi_writemsg(FI_DELIVERY_COMPLETE)` for reference (on shm Rivulet posts plain "
                        + "`fi_write`: the initiator copies into the target with `process_vm_writev` before the "
                        + "completion, so the plain rows above are its baseline), medians: ")
                        .append(dc, 0, dc.length() - 2).append(".\n\n");
            }
        }
        if (modes.contains("stream") || modes.contains("netty")) {
            b.append("Per streamed message: ").append(CopyGen.METHOD).append(", as the native program reposts "
                    + "its registered buffers (one per window slot) without writing them");
            if (modes.contains("netty")) {
                b.append(". ").append(NettyPeer.method()).append(" (64-byte messages)");
            }
            b.append(".\n\n");
        }
        // Allocation.
        Spread ca = spread("rivulet", "stream", 64, "client_alloc_b_per_msg");
        Spread sa = spread("rivulet", "stream", 64, "server_alloc_b_per_msg");
        Spread frames = spread("rivulet", "stream", 64, "coalesced_frames");
        Spread pa = spread("rivulet", "write", sizes.contains(64) ? 64 : sizes.get(0), "client_alloc_b_per_msg");
        int peaSize = sizes.contains(64 * KIB) ? 64 * KIB : sizes.getLast();
        Spread pea = spread("rivulet", "write-each", peaSize, "client_alloc_b_per_msg");
        Spread nca = spread("netty", "netty", 64, "client_alloc_b_per_msg");
        Spread nsa = spread("netty", "netty", 64, "server_alloc_b_per_msg");
        if (ca != null && sa != null) {
            long count = count("stream", 64);
            b.append(String.format(Locale.ROOT, "Allocation (Java heap, all threads of the JVM, "
                            + "`ThreadMXBean.getTotalThreadAllocatedBytes` around the timed phase), medians: Rivulet "
                            + "64 B streaming **%.1f B/message in the sending JVM, %.1f B/message in the receiving "
                            + "JVM** (min .. max %.1f .. %.1f and %.1f .. %.1f)", ca.median(), sa.median(), ca.min(), ca.max(),
                    sa.min(), sa.max()));
            if (frames != null) {
                b.append(String.format(Locale.ROOT, "; %.0f messages per coalesced frame on average (%.0f frames "
                        + "for %d messages)", count / Math.max(1, frames.median()), frames.median(), count));
            }
            if (pa != null) {
                b.append(String.format(Locale.ROOT, "; Rivulet streamed puts (`put(Publisher<RemoteWrite>)`) %.1f "
                        + "B/put", pa.median()));
            }
            if (pea != null) {
                b.append(String.format(Locale.ROOT, ", one Mono per put (`flatMap(put)`, %s) %.0f B/put",
                        sizeName(peaSize), pea.median()));
            }
            if (nca != null && nsa != null) {
                b.append(String.format(Locale.ROOT, "; Reactor Netty %.1f B/message sending, %.1f B/message "
                        + "receiving", nca.median(), nsa.median()));
            }
            b.append(".\n\n");
        }
        // Counts.
        b.append("Messages per measurement: ");
        List<String> cs = new ArrayList<>();
        for (String mode : List.of("stream", "write")) {
            for (int size : modes.contains(mode) ? sizes : List.<Integer>of()) {
                cs.add(mode + " " + sizeName(size) + " " + count(mode, size) + " (window " + window(size) + ")");
            }
        }
        if (modes.contains("pingpong")) {
            cs.add("ping-pong " + count("pingpong", 64) + " round trips");
        }
        if (modes.contains("netty")) {
            cs.add("Netty " + count("netty", 64));
        }
        b.append(String.join(", ", cs)).append("; each preceded by an untimed tenth as warm-up.\n\n");
        b.append(noTargets ? "Compatibility run: the ratios are not judged against targets.\n"
                : missed.isEmpty() ? "All targets met in this run.\n"
                : "Targets missed in this run: " + String.join(", ", missed) + ".\n");
        return b.toString();
    }
}
