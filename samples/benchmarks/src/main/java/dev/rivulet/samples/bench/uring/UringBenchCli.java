package dev.rivulet.samples.bench.uring;

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
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import static dev.rivulet.samples.bench.Results.KIB;
import static dev.rivulet.samples.bench.Results.fieldOf;
import static dev.rivulet.samples.bench.Results.sizeName;
import static dev.rivulet.samples.bench.Results.unitOf;
import static dev.rivulet.samples.bench.Results.value;

/**
 * The io_uring benchmark: Rivulet over io_uring, Reactor Netty TCP and plain C TCP programs on loopback, in one
 * invocation, each measurement repeated {@code --runs} times in rotating order, medians and spread printed as a table
 * ({@code bin/bench} puts it into {@code docs/benchmarks.md} with its charts). Two C programs run beside
 * each measurement: the like-for-like one (a {@code send} per message, a blocking {@code recv}) and the bound (the
 * same bytes in 256 KiB writes for streaming; busy-polling {@code recv} for ping-pong).
 *
 * <pre>
 * . bin/env.sh
 * ./mvnw -B -ntp -pl samples/benchmarks -am install -DskipTests
 * java -cp samples/benchmarks/target/benchmarks.jar dev.rivulet.samples.bench.uring.UringBenchCli [--runs 3]
 *      [--idle default|spin|blocking] [--scale 1.0] [--sizes 64,4096,65536,1048576] [--max-wait 120]
 *      [--no-quiet-gate] [--label TEXT] [--uring uring.zeroCopy=false,...]
 *      [--results PATH] [--report PATH]
 * </pre>
 *
 * <p>{@code --results} also writes every recorded run as a tab-separated file ({@link Results#write}) and
 * {@code --report} the table with its notes (what it prints, without the dated header) as Markdown, for
 * {@link dev.rivulet.samples.bench.suite.BenchSuite}.
 *
 * <p>What runs where: the plain C baseline is {@code samples/benchmarks/src/main/c/tcp_bench.c}, compiled here with
 * {@code gcc -O2 -o target/tcp_bench src/main/c/tcp_bench.c} (in {@code samples/benchmarks/}); each of its
 * measurements is one invocation, which forks the receiving process. Rivulet and Reactor Netty run between two further JVMs started with
 * this JVM's classpath ({@link UringBenchNode} server and client), kept for the whole invocation. This JVM only
 * orchestrates.
 */
public final class UringBenchCli implements CliArgs.SideBySide {

    private static final String RIVULET = "rivulet";
    private static final String NETTY = "netty";
    private static final String NATIVE = "native";
    /** The C program at the bound: 256 KiB writes (streaming), busy-polling recv (ping-pong). */
    private static final String BOUND = "native-bound";
    /** The three implementations' order rotates from run to run, so none always runs first (or right after C). */
    private static final List<List<String>> ORDERS = List.of(List.of(RIVULET, NETTY, NATIVE),
            List.of(NETTY, NATIVE, RIVULET), List.of(NATIVE, RIVULET, NETTY));

    private final int runs;
    private final String idle;
    private final double scale;
    private final List<Integer> sizes;
    private final Path moduleDir;
    private final Machine machine;
    private final String label;
    private final String commandLine;
    private final String uringOptions;
    /** Rivulet's queue depths and send prefetch ({@code --depth}); the default TransportConfig's when absent. */
    private final String depth;
    private final Results results = new Results();
    private NativeProgram tcpBench;
    private String nettyTransport = "?";

    UringBenchCli(Map<String, String> o, Path moduleDir, String commandLine) {
        this.runs = Integer.parseInt(o.getOrDefault("runs", "3"));
        this.idle = o.getOrDefault("idle", "default");
        this.scale = Double.parseDouble(o.getOrDefault("scale", "1.0"));
        this.sizes = CliArgs.sizes(o);
        this.moduleDir = moduleDir;
        // The quiet gate waits at most 30 s per measurement and --max-wait seconds in all, so that an invocation on
        // a machine that stays busy still ends in about ten minutes (the measurements that ran busy are reported).
        this.machine = new Machine(!o.containsKey("no-quiet-gate"), 30,
                Long.parseLong(o.getOrDefault("max-wait", "120")));
        this.label = o.get("label");
        this.commandLine = commandLine;
        this.uringOptions = o.get("uring");
        this.depth = o.get("depth");
        if (!List.of("default", "spin", "blocking").contains(idle)) {
            throw new IllegalArgumentException("--idle must be default, spin or blocking");
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = Options.parse(args, 0);
        if (o.containsKey("help")) {
            System.out.println("usage: UringBenchCli [--runs N] [--idle default|spin|blocking] [--scale F] "
                    + "[--sizes 64,4096,65536,1048576] [--max-wait SECONDS] "
                    + "[--no-quiet-gate] [--label TEXT] [--depth N] [--uring uring.option=value,...] [--results PATH] "
                    + "[--report PATH]");
            return;
        }
        CliArgs.runAndReport(o, new UringBenchCli(o, CliArgs.moduleDir("tcp_bench.c"), CliArgs.commandLine(args)));
    }

    // ============================================================================================== plan

    /**
     * Messages (or round trips) per measurement, chosen so that a Rivulet or Netty stream takes about 0.2 to 0.5 s here
     * (the plain C program, one system call per message, takes seconds at the small sizes). Streams of well under
     * 0.1 s measured both JVM implementations far below their rate (4 KiB at about half): ramp-up decided the figure.
     */
    long count(String mode, int size) {
        long n = mode.equals("pingpong") ? 10_000 : size <= 64 ? 1_000_000 : size <= 4 * KIB ? 500_000
                : size <= 64 * KIB ? 20_000 : 1_500;
        return Math.max(mode.equals("pingpong") ? 20 : 10, Math.round(n * scale));
    }

    /** Every streaming size, then 64-byte ping-pong: {mode, size}. */
    private List<Map.Entry<String, Integer>> tests() {
        List<Map.Entry<String, Integer>> t = new ArrayList<>();
        sizes.forEach(s -> t.add(Map.entry("stream", s)));
        t.add(Map.entry("pingpong", 64));
        return t;
    }

    @Override
    public Results results() {
        return results;
    }

    @Override
    public void run() throws Exception {
        tcpBench = NativeProgram.compile(moduleDir, "tcp_bench", "", Map.of());
        System.out.printf(Locale.ROOT, "# Rivulet: uring://127.0.0.1, default TransportConfig%s, idle strategy %s%n",
                uringOptions == null ? "" : " with " + uringOptions, idle);
        List<String> common = new ArrayList<>(List.of("--idle", idle));
        if (uringOptions != null) {
            common.addAll(List.of("--uring", uringOptions));
        }
        if (depth != null) {
            common.addAll(List.of("--depth", depth));
        }
        try (ChildJvm server = ChildJvm.start(UringBenchNode.class, "server", common, moduleDir, Map.of())) {
            String[] ready = server.ready().split(" ");
            List<String> clientArgs = new ArrayList<>(common);
            clientArgs.addAll(List.of("--address", ready[1], "--netty-port", ready[2]));
            try (ChildJvm client = ChildJvm.start(UringBenchNode.class, "client", clientArgs, moduleDir, Map.of())) {
                client.ready();
                // One untimed pass so the JIT has compiled the hot paths of both JVMs before the first recorded run.
                for (Map.Entry<String, Integer> t : tests()) {
                    jvm(server, client, RIVULET, t.getKey(), t.getValue(), false);
                    jvm(server, client, NETTY, t.getKey(), t.getValue(), false);
                }
                for (int r = 1; r <= runs; r++) {
                    for (Map.Entry<String, Integer> t : tests()) {
                        machine.waitQuiet();
                        for (String impl : ORDERS.get((r - 1) % ORDERS.size())) {
                            if (impl.equals(NATIVE)) {
                                nativeRuns(t.getKey(), t.getValue());
                            } else {
                                jvm(server, client, impl, t.getKey(), t.getValue(), true);
                            }
                        }
                    }
                    System.out.println("# run " + r + "/" + runs + " done");
                }
                client.command("quit", false);
            }
        }
    }

    /** The like-for-like C measurement and, where one applies, the bound. */
    private void nativeRuns(String mode, int size) throws IOException, InterruptedException {
        String n = Long.toString(count(mode, size));
        results.add(NATIVE, mode, size, Results.parse(tcpBench.run(List.of(mode, Integer.toString(size), n))));
        String bound = mode.equals("pingpong") ? "pingpong-spin" : size >= 64 * KIB ? "bulk" : null;
        if (bound != null) {
            results.add(BOUND, mode, size, Results.parse(tcpBench.run(List.of(bound, Integer.toString(size), n))));
        }
    }

    /** One Rivulet or Reactor Netty measurement between the two node JVMs. */
    private void jvm(ChildJvm server, ChildJvm client, String impl, String mode, int size, boolean record)
            throws IOException {
        // Only Rivulet's progress threads spin; Netty's event loops block in epoll_wait either way.
        boolean hot = idle.equals("spin") && impl.equals(RIVULET);
        String command = (impl.equals(NETTY) ? "netty-" : "") + mode;
        String line = CliArgs.measure(server, client, hot, command + " " + size + " " + count(mode, size));
        if (!line.startsWith("RESULT ")) {
            throw new IllegalStateException(command + " " + size + " failed: " + line);
        }
        Map<String, String> m = Results.parse(line);
        if (!record) {
            System.out.println("# warm-up: " + line);
            return;
        }
        System.out.println(line);
        results.add(impl, mode, size, m);
        if (impl.equals(NETTY)) {
            nettyTransport = m.get("transport");
        }
    }

    // ============================================================================================== report

    /**
     * What ran, when, on what and how long it waited for the machine: the dated paragraphs that open the doc block,
     * above {@link #table()}.
     */
    @Override
    public String header(double seconds) {
        StringBuilder b = new StringBuilder();
        String idleText = switch (idle) {
            case "spin" -> "Rivulet's progress threads busy-polling during each Rivulet measurement and backing off by "
                    + "the default strategy between measurements";
            case "blocking" -> "Rivulet's blocking idle strategy (the default's 200 spins, 10 yields and sleeps of "
                    + "10 µs doubling to 640 µs, then a sleep in io_uring_enter until a completion or a submission "
                    + "ends it)";
            default -> "Rivulet's default idle strategy (200 spins, 10 yields, then sleeps of 10 µs doubling to "
                    + "10 ms, in io_uring_enter on the ring)";
        };
        if (uringOptions != null) {
            idleText += "; Rivulet transport options `" + uringOptions + "`";
        }
        b.append(String.format(Locale.ROOT, "Loopback, %s; Reactor Netty channel `%s`; %d recorded runs of each "
                        + "measurement after one untimed pass of every JVM measurement; whole invocation %.0f s. "
                        + "Taken %s on %d vCPUs, load average before/after %s. Command: `UringBenchCli %s`.%n%n",
                idleText, nettyTransport, runs, seconds, LocalDate.now(), Runtime.getRuntime().availableProcessors(),
                machine.loadAverages(), commandLine));
        b.append(machine.provenance(label, moduleDir));
        return b.toString();
    }

    /** The result table and the notes under it (allocation, counts, targets), without dates. */
    @Override
    public String table() {
        StringBuilder b = new StringBuilder();
        b.append("| measurement | size | unit | Rivulet io_uring median (min .. max) | Reactor Netty median "
                + "(min .. max) | plain C median (min .. max) | C bound median (min .. max) | Rivulet / Netty | "
                + "Rivulet / C bound | target | met? |\n");
        b.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|\n");
        List<String> missed = new ArrayList<>();
        List<String> met = new ArrayList<>();
        for (int size : sizes) {
            String unit = unitOf(size);
            Spread r = results.spread(RIVULET, "stream", size, fieldOf(unit));
            Spread n = results.spread(NETTY, "stream", size, fieldOf(unit));
            Spread c = results.spread(NATIVE, "stream", size, fieldOf(unit));
            Spread bound = results.spread(BOUND, "stream", size, fieldOf(unit));
            if (r == null || n == null || c == null) {
                continue;
            }
            double vsNetty = r.median() / n.median();
            String vsBound = bound == null ? "—" : String.format(Locale.ROOT, "%.2f", r.median() / bound.median());
            String target = "≥ 1 × Netty";
            String ok = verdict(vsNetty >= 1.0, "Netty", sizeName(size), met, missed);
            if (bound != null) {
                target += ", ≥ 0.8 × C bound";
                ok += ", " + verdict(r.median() / bound.median() >= 0.8, "C bound", sizeName(size), met, missed);
            }
            b.append(String.format(Locale.ROOT, "| streaming | %s | %s | %s | %s | %s | %s | %.2f | %s | %s | %s |%n",
                    sizeName(size), unit, cell(r, unit), cell(n, unit), cell(c, unit),
                    bound == null ? "—" : cell(bound, unit), vsNetty, vsBound, target, ok));
        }
        Spread rp = results.spread(RIVULET, "pingpong", 64, "rtt_median_us");
        Spread np = results.spread(NETTY, "pingpong", 64, "rtt_median_us");
        Spread cp = results.spread(NATIVE, "pingpong", 64, "rtt_median_us");
        Spread bp = results.spread(BOUND, "pingpong", 64, "rtt_median_us");
        if (rp != null && np != null && cp != null && bp != null) {
            double vsNetty = rp.median() / np.median();
            double vsBound = rp.median() / bp.median();
            // Busy-polling is judged against the busy-polling C bound; the other modes against Netty.
            String target = idle.equals("spin") ? "≤ 1.5 × C bound" : "≤ 1 × Netty";
            String ok = idle.equals("spin") ? verdict(vsBound <= 1.5, "C bound", "ping-pong", met, missed)
                    : verdict(vsNetty <= 1.0, "Netty", "ping-pong", met, missed);
            b.append(String.format(Locale.ROOT, "| ping-pong, median round trip (lower is better) | 64 B | µs "
                            + "| %s | %s | %s | %s | %.2f | %.2f | %s | %s |%n", cell(rp, "us"), cell(np, "us"), cell(cp, "us"),
                    cell(bp, "us"), vsNetty, vsBound, target, ok));
        }
        b.append('\n');
        b.append("Per streamed message both JVM sides do the same work, each at its best: ").append(CopyGen.METHOD)
                .append(". ").append(NettyPeer.method()).append(". Rivulet's sockets keep the kernel's buffer "
                        + "autotuning (it has no socket buffer option). Plain C: one `send` per message of one buffer "
                        + "whose first 8 bytes carry the sequence number, blocking `recv`. C bound: the same bytes "
                        + "written in 256 KiB `send`s (streaming, 64 KiB and up), and both sides busy-polling a "
                        + "non-blocking `recv` (ping-pong).\n\n");
        b.append("Allocation on the Java heap per message (all threads of each JVM, "
                + "`ThreadMXBean.getTotalThreadAllocatedBytes` around the timed phase), medians, sending JVM / "
                + "receiving JVM:");
        List<String> alloc = new ArrayList<>();
        for (int size : sizes) {
            Spread rc = results.spread(RIVULET, "stream", size, "client_alloc_b_per_msg");
            Spread rs = results.spread(RIVULET, "stream", size, "server_alloc_b_per_msg");
            Spread nc = results.spread(NETTY, "stream", size, "client_alloc_b_per_msg");
            Spread ns = results.spread(NETTY, "stream", size, "server_alloc_b_per_msg");
            if (rc == null || rs == null || nc == null || ns == null) {
                continue;
            }
            alloc.add(String.format(Locale.ROOT, " %s Rivulet **%.1f / %.1f B**, Netty %.1f / %.1f B", sizeName(size),
                    rc.median(), rs.median(), nc.median(), ns.median()));
        }
        b.append(String.join(";", alloc)).append(".\n\n");
        b.append("Messages per measurement: ").append(sizes.stream()
                        .map(s -> sizeName(s) + " " + count("stream", s)).collect(Collectors.joining(", ")))
                .append(", ping-pong ").append(count("pingpong", 64))
                .append(" round trips; each preceded by an untimed tenth on the same connection.\n\n");
        b.append("Targets met: ").append(met.isEmpty() ? "none" : String.join(", ", met)).append(". Targets missed: ")
                .append(missed.isEmpty() ? "none" : String.join(", ", missed)).append(".\n");
        return b.toString();
    }

    private static String verdict(boolean ok, String against, String what, List<String> met, List<String> missed) {
        (ok ? met : missed).add(what + " vs " + against);
        return against + (ok ? " yes" : " **no**");
    }

    private static String cell(Spread s, String unit) {
        return value(s.median(), unit) + " (" + s.range(unit) + ")";
    }
}
