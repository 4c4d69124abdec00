package dev.rivulet.samples.bench.uring;

import dev.rivulet.samples.bench.ChildJvm;
import dev.rivulet.samples.bench.CliArgs;
import dev.rivulet.samples.bench.Machine;
import dev.rivulet.samples.bench.NativeProgram;
import dev.rivulet.samples.bench.Options;
import dev.rivulet.samples.bench.Results;
import dev.rivulet.samples.bench.Results.Spread;

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
 * The io_uring benchmark of issue 4: Rivulet over io_uring, Reactor Netty TCP and a plain C TCP program on loopback,
 * in one invocation, each measurement repeated {@code --runs} times in rotating order, medians and spread printed as
 * a table and written to the "io_uring / Reactor Netty" section of {@code docs/benchmarks.md}.
 *
 * <pre>
 * . bin/env.sh
 * ./mvnw -B -ntp -pl samples/benchmarks -am install -DskipTests
 * java -cp samples/benchmarks/target/benchmarks.jar dev.rivulet.samples.bench.uring.UringBenchCli [--runs 3]
 *      [--idle default|spin] [--scale 1.0] [--sizes 64,4096,65536,1048576] [--max-wait 120]
 *      [--docs PATH | --no-docs] [--no-quiet-gate] [--label TEXT] [--uring uring.zeroCopy=false,...]
 *      [--results PATH] [--report PATH]
 * </pre>
 *
 * <p>{@code --results} also writes every recorded run as a tab-separated file ({@link Results#write}) and
 * {@code --report} the table with its notes (the doc block without its dated header) as Markdown, for
 * {@link dev.rivulet.samples.bench.suite.BenchSuite}.
 *
 * <p>What runs where: the plain C baseline is {@code samples/benchmarks/src/main/c/tcp_bench.c}, compiled here with
 * {@code gcc -O2 -o target/tcp_bench src/main/c/tcp_bench.c} (in {@code samples/benchmarks/}); each of its measurements is one
 * invocation, which forks the receiving process. Rivulet and Reactor Netty run between two further JVMs started with
 * this JVM's classpath ({@link UringBenchNode} server and client), kept for the whole invocation. This JVM only
 * orchestrates.
 */
public final class UringBenchCli {

    private static final String RIVULET = "rivulet";
    private static final String NETTY = "netty";
    private static final String NATIVE = "native";
    /** The three implementations' order rotates from run to run, so none always runs first (or right after C). */
    private static final List<List<String>> ORDERS = List.of(List.of(RIVULET, NETTY, NATIVE),
            List.of(NETTY, NATIVE, RIVULET), List.of(NATIVE, RIVULET, NETTY));

    private final int runs;
    private final String idle;
    private final double scale;
    private final List<Integer> sizes;
    private final Path docs;
    private final Path moduleDir;
    private final Machine machine;
    private final String label;
    private final String commandLine;
    private final String uringOptions;
    private final Results results = new Results();
    private NativeProgram tcpBench;
    private String nettyTransport = "?";

    UringBenchCli(Map<String, String> o, Path moduleDir, String commandLine) {
        this.runs = Integer.parseInt(o.getOrDefault("runs", "3"));
        this.idle = o.getOrDefault("idle", "default");
        this.scale = Double.parseDouble(o.getOrDefault("scale", "1.0"));
        this.sizes = CliArgs.sizes(o);
        this.moduleDir = moduleDir;
        this.docs = CliArgs.docs(o, moduleDir);
        // The quiet gate waits at most 30 s per measurement and --max-wait seconds in all, so that an invocation on
        // a machine that stays busy still ends in about ten minutes (the measurements that ran busy are reported).
        this.machine = new Machine(!o.containsKey("no-quiet-gate"), 30,
                Long.parseLong(o.getOrDefault("max-wait", "120")));
        this.label = o.get("label");
        this.commandLine = commandLine;
        this.uringOptions = o.get("uring");
        if (!idle.equals("spin") && !idle.equals("default")) {
            throw new IllegalArgumentException("--idle must be default or spin");
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = Options.parse(args, 0);
        if (o.containsKey("help")) {
            System.out.println("usage: UringBenchCli [--runs N] [--idle default|spin] [--scale F] "
                    + "[--sizes 64,4096,65536,1048576] [--max-wait SECONDS] [--docs PATH | --no-docs] "
                    + "[--no-quiet-gate] [--label TEXT] [--uring uring.option=value,...] [--results PATH] "
                    + "[--report PATH]");
            return;
        }
        UringBenchCli cli = new UringBenchCli(o, CliArgs.moduleDir("tcp_bench.c"), CliArgs.commandLine(args));
        long t0 = System.nanoTime();
        cli.run();
        String body = cli.table();
        String table = cli.header((System.nanoTime() - t0) / 1e9) + body;
        System.out.println();
        System.out.println(table);
        if (cli.docs != null) {
            UringBenchDoc.DOC.update(cli.docs, cli.idle, table);
            System.out.println("updated " + cli.docs);
        }
        CliArgs.writeOutputs(o, cli.results, body);
    }

    // ============================================================================================== plan

    /** Messages (or round trips) per measurement, chosen so that one takes roughly 0.2 to 1 s here. */
    long count(String mode, int size) {
        long n = mode.equals("pingpong") ? 10_000 : size <= 64 ? 200_000 : size <= 4 * KIB ? 100_000
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

    private void run() throws Exception {
        tcpBench = NativeProgram.compile(moduleDir, "tcp_bench", "", Map.of());
        System.out.printf(Locale.ROOT, "# Rivulet: uring://127.0.0.1, default TransportConfig%s, idle strategy %s%n",
                uringOptions == null ? "" : " with " + uringOptions, idle);
        List<String> common = uringOptions == null ? List.of("--idle", idle)
                : List.of("--idle", idle, "--uring", uringOptions);
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
                                String line = tcpBench.run(List.of(t.getKey(), Integer.toString(t.getValue()),
                                        Long.toString(count(t.getKey(), t.getValue()))));
                                results.add(NATIVE, t.getKey(), t.getValue(), Results.parse(line));
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
    String header(double seconds) {
        StringBuilder b = new StringBuilder();
        String idleText = idle.equals("spin")
                ? "Rivulet's progress threads busy-polling during each Rivulet measurement and backing off by the "
                + "default strategy between measurements"
                : "Rivulet's default idle strategy (200 spins, 10 yields, then sleeps of 10 µs doubling to 10 ms, in "
                + "io_uring_enter on the ring)";
        if (uringOptions != null) {
            idleText += "; Rivulet transport options `" + uringOptions + "`";
        }
        b.append(String.format(Locale.ROOT, "Loopback, %s; Reactor Netty channel `%s`; %d recorded runs of each "
                        + "measurement after one untimed pass of every JVM measurement; whole invocation %.0f s. Taken %s "
                        + "on %d vCPUs, load average before/after %s. Command: `UringBenchCli %s`.%n%n",
                idleText, nettyTransport, runs, seconds, LocalDate.now(), Runtime.getRuntime().availableProcessors(),
                machine.loadAverages(), commandLine));
        b.append(String.format(Locale.ROOT, "Build: %s. Waited %.0f s in total for the shared machine to quieten "
                        + "(other processes below 25 %% of the CPUs) before measurements%s.%n%n",
                label != null ? label : "repository HEAD " + Machine.gitHead(moduleDir), machine.waitedSeconds(),
                machine.busyMeasurements() == 0 ? "; none ran while it was busier"
                        : "; " + machine.busyMeasurements() + " measurement(s) ran while it was busier (waits gave up)"));
        return b.toString();
    }

    /** The result table and the notes under it (allocation, counts, targets), without dates. */
    String table() {
        StringBuilder b = new StringBuilder();
        b.append("| measurement | size | unit | Rivulet io_uring median (min .. max) | Reactor Netty median "
                + "(min .. max) | plain C median (min .. max) | Rivulet / Netty | Rivulet / C | target | met? |\n");
        b.append("|---|---:|---|---:|---:|---:|---:|---:|---|---|\n");
        List<String> missed = new ArrayList<>();
        List<String> met = new ArrayList<>();
        for (int size : sizes) {
            String unit = unitOf(size);
            Spread r = results.spread(RIVULET, "stream", size, fieldOf(unit));
            Spread n = results.spread(NETTY, "stream", size, fieldOf(unit));
            Spread c = results.spread(NATIVE, "stream", size, fieldOf(unit));
            if (r == null || n == null || c == null) {
                continue;
            }
            double vsNetty = r.median() / n.median();
            double vsC = r.median() / c.median();
            String target = "—";
            String ok = "";
            if (size >= 64 * KIB) {
                target = "≥ 1.2 × Netty, ≥ 0.85 × C";
                ok = verdict(vsNetty >= 1.2, "Netty", sizeName(size), met, missed) + ", "
                        + verdict(vsC >= 0.85, "C", sizeName(size), met, missed);
            }
            b.append(String.format(Locale.ROOT, "| streaming | %s | %s | %s | %s | %s | %.2f | %.2f | %s | %s |%n",
                    sizeName(size), unit, cell(r, unit), cell(n, unit), cell(c, unit), vsNetty, vsC, target, ok));
        }
        Spread rp = results.spread(RIVULET, "pingpong", 64, "rtt_median_us");
        Spread np = results.spread(NETTY, "pingpong", 64, "rtt_median_us");
        Spread cp = results.spread(NATIVE, "pingpong", 64, "rtt_median_us");
        if (rp != null && np != null && cp != null) {
            double vsNetty = rp.median() / np.median();
            b.append(String.format(Locale.ROOT, "| ping-pong, median round trip (lower is better) | 64 B | µs | %s | %s "
                            + "| %s | %.2f | %.2f | ≤ 1 × Netty | %s |%n", cell(rp, "us"), cell(np, "us"),
                    cell(cp, "us"), vsNetty, rp.median() / cp.median(),
                    verdict(vsNetty <= 1.0, "Netty", "ping-pong", met, missed)));
        }
        b.append('\n');
        b.append("Allocation on the Java heap per message (all threads of each JVM, "
                + "`ThreadMXBean.getTotalThreadAllocatedBytes` around the timed phase), medians, sending JVM / "
                + "receiving JVM:");
        List<String> alloc = new ArrayList<>();
        for (int size : sizes) {
            Spread rc = results.spread(RIVULET, "stream", size, "client_alloc_b_per_msg");
            Spread rs = results.spread(RIVULET, "stream", size, "server_alloc_b_per_msg");
            Spread nc = results.spread(NETTY, "stream", size, "client_alloc_b_per_msg");
            Spread ns = results.spread(NETTY, "stream", size, "server_alloc_b_per_msg");
            if (rc != null && rs != null && nc != null && ns != null) {
                alloc.add(String.format(Locale.ROOT, " %s Rivulet **%.1f / %.1f B**, Netty %.1f / %.1f B",
                        sizeName(size), rc.median(), rs.median(), nc.median(), ns.median()));
            }
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
