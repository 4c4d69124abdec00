package dev.rivulet.samples.bench.fabric;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Side-by-side libfabric benchmark (issue 3): a native C libfabric program and Rivulet over the same provider, in one
 * invocation, each measurement repeated {@code --runs} times, medians and spread printed as a table and written to
 * the "libfabric" section of {@code docs/benchmarks.md}.
 *
 * <pre>
 * . bin/env.sh
 * ./mvnw -B -ntp -pl samples -am install -DskipTests
 * java -cp samples/target/benchmarks.jar dev.rivulet.samples.bench.fabric.FabricBenchCli [--provider tcp|sockets]
 *      [--runs 5] [--idle spin|default] [--scale 1.0] [--sizes 64,4096,65536,1048576] [--docs PATH | --no-docs]
 * </pre>
 *
 * <p>What runs where: the native baseline is {@code samples/src/main/c/fabric_bench.c}, compiled here with
 * {@code gcc -O2 -o target/fabric_bench src/main/c/fabric_bench.c -lfabric} (in {@code samples/}); each native
 * measurement is one invocation of it, which forks a server process. Rivulet runs in two further JVMs started with
 * this JVM's classpath ({@link FabricBenchNode} server and client), kept for all runs of one transport
 * configuration; Reactor Netty's TCP comparison runs between the same two JVMs. This JVM only orchestrates.
 * Every child gets {@code FI_TCP_IFACE=lo} and {@code FI_SOCKETS_IFACE=lo} (unless set already) so the providers
 * bind to loopback.
 */
public final class FabricBenchCli {

    static final int KIB = 1024;
    static final int MIB = 1024 * 1024;
    static final String JVM_FLAGS = "--enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -Xmx2g";

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
    private final double scale;
    private final List<Integer> sizes;
    private final Path docs;
    private final Path moduleDir;
    private final Map<String, List<Map<String, String>>> results = new LinkedHashMap<>();
    private final List<String> notes = new ArrayList<>();
    private final String commandLine;
    private final boolean rendezvous;
    private final boolean quietGate;
    private final String label;
    private String loadBefore = "?";
    private int busyMeasurements;
    private long quietWaitMillis;

    FabricBenchCli(Map<String, String> o, Path moduleDir, String commandLine) {
        this.provider = o.getOrDefault("provider", "tcp");
        this.runs = Integer.parseInt(o.getOrDefault("runs", "5"));
        this.idle = o.getOrDefault("idle", "spin");
        this.scale = Double.parseDouble(o.getOrDefault("scale", "1.0"));
        this.sizes = Arrays.stream(o.getOrDefault("sizes", "64,4096,65536,1048576").split(","))
                .map(String::trim).map(Integer::parseInt).toList();
        this.moduleDir = moduleDir;
        this.docs = o.containsKey("no-docs") ? null
                : Path.of(o.getOrDefault("docs", moduleDir.resolve("../docs/benchmarks.md").normalize().toString()));
        this.commandLine = commandLine;
        this.rendezvous = !o.containsKey("no-rendezvous");
        this.quietGate = !o.containsKey("no-quiet-gate");
        this.label = o.get("label");
        if (!provider.equals("tcp") && !provider.equals("sockets")) {
            throw new IllegalArgumentException("--provider must be tcp or sockets (shm cannot run two endpoints in "
                    + "one process here, and the others need hardware)");
        }
        if (!idle.equals("spin") && !idle.equals("default")) {
            throw new IllegalArgumentException("--idle must be spin or default");
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = FabricBenchNode.options(args, 0);
        if (o.containsKey("help")) {
            System.out.println("usage: FabricBenchCli [--provider tcp|sockets] [--runs N] [--idle spin|default] "
                    + "[--scale F] [--sizes 64,4096,65536,1048576] [--docs PATH | --no-docs] [--no-rendezvous] "
                    + "[--no-quiet-gate] [--label TEXT]");
            return;
        }
        Path module = Files.exists(Path.of("samples/src/main/c/fabric_bench.c")) ? Path.of("samples")
                : Files.exists(Path.of("src/main/c/fabric_bench.c")) ? Path.of(".") : null;
        if (module == null) {
            System.err.println("run from the repository root or from samples/: src/main/c/fabric_bench.c not found");
            System.exit(2);
        }
        FabricBenchCli cli = new FabricBenchCli(o, module.toAbsolutePath().normalize(), Arrays.stream(args)
                .map(a -> a.contains(" ") ? "'" + a + "'" : a).collect(java.util.stream.Collectors.joining(" ")));
        long t0 = System.nanoTime();
        cli.run();
        String table = cli.report((System.nanoTime() - t0) / 1e9);
        System.out.println();
        System.out.println(table);
        if (cli.docs != null) {
            BenchmarksDoc.update(cli.docs, cli.provider + ":" + cli.idle, table);
            System.out.println("updated " + cli.docs);
        }
    }

    // ============================================================================================== plan

    /** Messages (or round trips) per measurement, chosen so that one takes roughly 0.2 to 1 s here. */
    long count(String mode, int size) {
        boolean tcp = provider.equals("tcp");
        long n = switch (mode) {
            case "stream" -> size <= 64 ? (tcp ? 200_000 : 10_000) : size <= 4 * KIB ? (tcp ? 100_000 : 10_000)
                    : size <= 64 * KIB ? (tcp ? 20_000 : 3_000) : (tcp ? 1_500 : 200);
            case "write", "write-dc" -> size <= 64 ? (tcp ? 100_000 : 5_000) : size <= 4 * KIB ? (tcp ? 50_000 : 5_000)
                    : size <= 64 * KIB ? (tcp ? 20_000 : 3_000) : (tcp ? 1_500 : 200);
            case "pingpong" -> tcp ? 10_000 : 200;
            case "netty" -> 200_000;
            default -> throw new IllegalArgumentException(mode);
        };
        return Math.max(mode.equals("pingpong") ? 20 : 10, Math.round(n * scale));
    }

    static int window(int size) {
        return size > 64 * KIB ? 16 : 128;
    }

    static int eager(int size) {
        return Math.max(64 * KIB, size);
    }

    private void run() throws Exception {
        loadBefore = loadAverage();
        String cc = "gcc -O2 -o target/fabric_bench src/main/c/fabric_bench.c -lfabric";
        System.out.println("# " + cc + "   (in " + moduleDir + ")");
        Files.createDirectories(moduleDir.resolve("target"));
        Process gcc = new ProcessBuilder("sh", "-c", cc).directory(moduleDir.toFile()).inheritIO().start();
        if (gcc.waitFor() != 0) {
            throw new IllegalStateException("compiling the native baseline failed (needs gcc and libfabric-dev)");
        }
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
            runBlock(e.getKey().get(0), e.getKey().get(1), e.getValue());
        }
    }

    private void runBlock(int eager, int depth, List<Test> tests) throws Exception {
        System.out.printf(Locale.ROOT, "# Rivulet configuration: fabric.eagerSize=%d, send/receive queue depth and "
                + "prefetch %d, idle strategy %s%n", eager, depth, idle);
        try (Node server = Node.start("server", List.of("--provider", provider, "--eager", Integer.toString(eager),
                "--depth", Integer.toString(depth), "--idle", idle), moduleDir)) {
            String[] ready = server.ready().split(" ");
            try (Node client = Node.start("client", List.of("--provider", provider, "--eager",
                    Integer.toString(eager), "--depth", Integer.toString(depth), "--idle", idle, "--address", ready[1],
                    "--netty-port", ready[2]), moduleDir)) {
                client.ready();
                // One untimed pass so the JIT has compiled the hot paths before the first recorded run.
                for (Test t : tests) {
                    rivulet(server, client, t, false);
                }
                for (int r = 1; r <= runs; r++) {
                    for (Test t : tests) {
                        if (t.mode.equals("netty")) {
                            waitQuiet();
                            rivulet(server, client, t, true);
                            continue;
                        }
                        waitQuiet();
                        if (t.mode.equals("stream-rndv")) {
                            rivulet(server, client, t, true); // compared with the native stream of the same size
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

    private void rivulet(Node server, Node client, Test t, boolean record) throws IOException {
        boolean hot = idle.equals("spin");
        if (hot) {
            server.command("hot", true);
            client.command("hot", true);
        }
        String mode = t.mode.equals("stream-rndv") ? "stream" : t.mode;
        String line = client.command(mode + " " + t.size + " " + count(mode, t.size), true);
        if (hot) {
            server.command("cold", true);
            client.command("cold", true);
        }
        if (!line.startsWith("RESULT ")) {
            throw new IllegalStateException("rivulet " + t + " failed: " + line);
        }
        Map<String, String> m = parse(line);
        if (record) {
            System.out.println(line);
            add(m.get("impl"), t.mode, t.size, m);
        } else {
            System.out.println("# warm-up: " + line);
        }
    }

    private void nativeRun(String mode, int size) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(moduleDir.resolve("target/fabric_bench").toString(), "-p",
                provider, "-w", Integer.toString(window(size))));
        if (mode.equals("write-dc")) {
            cmd.add("-d");
        }
        cmd.addAll(List.of(mode.equals("write-dc") ? "write" : mode, Integer.toString(size),
                Long.toString(count(mode, size))));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(moduleDir.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT);
        loopbackOnly(pb);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException("native " + mode + " " + size + " failed: " + out);
        }
        String line = out.lines().filter(l -> l.startsWith("RESULT ")).findFirst()
                .orElseThrow(() -> new IllegalStateException("native run printed no RESULT: " + out));
        System.out.println(line);
        add("native", mode, size, parse(line));
    }

    /**
     * The machine is shared: before each measurement, waits (up to 2 minutes) until the other processes leave at
     * least 75 % of the CPUs idle, sampled over 0.4 s from {@code /proc/stat}. Measurements taken after the wait
     * timed out are counted and reported.
     */
    private void waitQuiet() throws InterruptedException {
        if (!quietGate) {
            return;
        }
        long start = System.nanoTime();
        boolean told = false;
        for (;;) {
            double busy = cpuBusy(400);
            if (busy < 0.25) {
                quietWaitMillis += (System.nanoTime() - start) / 1_000_000;
                return;
            }
            if (System.nanoTime() - start > TimeUnit.MINUTES.toNanos(2)) {
                busyMeasurements++;
                quietWaitMillis += (System.nanoTime() - start) / 1_000_000;
                System.out.printf(Locale.ROOT, "# machine still busy (%.0f %% of the CPUs), measuring anyway%n",
                        busy * 100);
                return;
            }
            if (!told) {
                System.out.printf(Locale.ROOT, "# waiting for the machine to quieten (%.0f %% of the CPUs busy)%n",
                        busy * 100);
                told = true;
            }
            Thread.sleep(2000);
        }
    }

    /** Fraction of all CPUs busy over {@code millis}, from /proc/stat (0 where unavailable). */
    static double cpuBusy(long millis) throws InterruptedException {
        long[] a = cpuTimes();
        Thread.sleep(millis);
        long[] b = cpuTimes();
        if (a == null || b == null) {
            return 0;
        }
        double total = b[0] - a[0];
        return total <= 0 ? 0 : 1 - (b[1] - a[1]) / total;
    }

    /** {total, idle + iowait} jiffies of the "cpu" line. */
    private static long[] cpuTimes() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < Math.min(f.length, 9); i++) {
                total += Long.parseLong(f[i]);
            }
            return new long[]{total, Long.parseLong(f[4]) + Long.parseLong(f[5])};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    static void loopbackOnly(ProcessBuilder pb) {
        pb.environment().putIfAbsent("FI_TCP_IFACE", "lo");
        pb.environment().putIfAbsent("FI_SOCKETS_IFACE", "lo");
    }

    private void add(String impl, String mode, int size, Map<String, String> m) {
        results.computeIfAbsent(impl + "/" + mode + "/" + size, k -> new ArrayList<>()).add(m);
    }

    static Map<String, String> parse(String line) {
        Map<String, String> m = new HashMap<>();
        for (String kv : line.substring("RESULT ".length()).trim().split("\\s+")) {
            int i = kv.indexOf('=');
            if (i > 0) {
                m.put(kv.substring(0, i), kv.substring(i + 1));
            }
        }
        return m;
    }

    // ============================================================================================== child JVMs

    /** A {@link FabricBenchNode} JVM driven over its stdin/stdout. */
    static final class Node implements AutoCloseable {
        private final String role;
        private final Process process;
        private final BufferedReader out;
        private final BufferedWriter in;

        private Node(String role, Process process) {
            this.role = role;
            this.process = process;
            this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            this.in = new BufferedWriter(new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8));
        }

        static Node start(String role, List<String> args, Path moduleDir) throws IOException {
            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(Arrays.asList(JVM_FLAGS.split(" ")));
            cmd.add("-cp");
            // Absolute, since the child runs in the module directory.
            cmd.add(Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                    .map(e -> Path.of(e).toAbsolutePath().toString())
                    .reduce((a, b) -> a + java.io.File.pathSeparator + b).orElse(""));
            cmd.add(FabricBenchNode.class.getName());
            cmd.add(role);
            cmd.addAll(args);
            ProcessBuilder pb = new ProcessBuilder(cmd).directory(moduleDir.toFile())
                    .redirectError(ProcessBuilder.Redirect.INHERIT);
            loopbackOnly(pb);
            return new Node(role, pb.start());
        }

        /** Waits for the node's READY line (skipping anything else it prints) and returns it. */
        String ready() throws IOException {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("READY")) {
                    return line;
                }
                System.out.println("# " + role + ": " + line);
            }
            throw new IllegalStateException(role + " JVM exited before it was ready");
        }

        /** Sends one command; with {@code answer}, returns the first line starting with RESULT, ERROR or OK. */
        String command(String command, boolean answer) throws IOException {
            in.write(command);
            in.newLine();
            in.flush();
            if (!answer) {
                return null;
            }
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("RESULT ") || line.startsWith("ERROR") || line.startsWith("OK")) {
                    return line;
                }
                System.out.println("# " + role + ": " + line);
            }
            throw new IllegalStateException(role + " JVM exited while running '" + command + "'");
        }

        @Override
        public void close() throws IOException {
            try {
                in.close();
            } catch (IOException e) {
                // already gone
            }
            try {
                if (!process.waitFor(15, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }

    // ============================================================================================== report

    /** min, median, max of one field over the recorded runs. */
    record Spread(double min, double median, double max, int n) {
        static Spread of(List<Map<String, String>> runs, String field) {
            if (runs == null || runs.isEmpty()) {
                return null;
            }
            double[] v = runs.stream().mapToDouble(m -> Double.parseDouble(m.get(field))).sorted().toArray();
            double med = v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
            return new Spread(v[0], med, v[v.length - 1], v.length);
        }
    }

    private Spread spread(String impl, String mode, int size, String field) {
        return Spread.of(results.get(impl + "/" + mode + "/" + size), field);
    }

    static String sizeName(int size) {
        return size >= MIB && size % MIB == 0 ? (size / MIB) + " MiB" : size >= KIB && size % KIB == 0
                ? (size / KIB) + " KiB" : size + " B";
    }

    /** Values are shown in the unit that reads best: messages/s up to 4 KiB, MB/s from 64 KiB, µs for latency. */
    private static String fmt(double v, String unit) {
        return switch (unit) {
            case "msgs/s" -> String.format(Locale.ROOT, "%,.0f", v).replace(',', ' ');
            case "MB/s" -> String.format(Locale.ROOT, "%,.0f", v).replace(',', ' ');
            default -> String.format(Locale.ROOT, "%.1f", v);
        };
    }

    private static String range(Spread s, String unit) {
        return fmt(s.min, unit) + " .. " + fmt(s.max, unit);
    }

    String report(double seconds) {
        StringBuilder b = new StringBuilder();
        String idleText = idle.equals("spin")
                ? "busy-polling progress threads during each Rivulet measurement (like the native program), the "
                + "default backoff between measurements"
                : "the default idle strategy (100 spins, 10 yields, then sleeps of 10 µs doubling to 10 ms, in epoll "
                + "on the completion queues' wait fds where the provider has them)";
        b.append(String.format(Locale.ROOT, "Provider `%s` (`%s` fi_info entry bound to loopback with "
                        + "`FI_%s_IFACE=lo`), %s, %d recorded runs of each measurement after one untimed Rivulet "
                        + "warm-up pass; whole invocation %.0f s. Taken %s on %d vCPUs, load average before/after "
                        + "%s. Command: `FabricBenchCli %s`.%n%n",
                provider, provider.equals("tcp") ? "tcp;ofi_rxm" : "sockets", provider.toUpperCase(Locale.ROOT),
                idleText, runs, seconds, LocalDate.now(), Runtime.getRuntime().availableProcessors(), loadAverages(),
                commandLine));
        b.append(String.format(Locale.ROOT, "Build: %s. Waited %.0f s in total for the shared machine to quieten "
                        + "(other processes below 25 %% of the CPUs) before measurements%s.%n%n",
                label != null ? label : "repository HEAD " + gitHead(), quietWaitMillis / 1e3,
                busyMeasurements == 0 ? "; none ran while it was busier"
                        : "; " + busyMeasurements + " measurement(s) ran while it was busier (waits timed out)"));
        b.append("| measurement | size | unit | native median | native min .. max | Rivulet median "
                + "| Rivulet min .. max | Rivulet / native | target | met? |\n");
        b.append("|---|---:|---|---:|---:|---:|---:|---:|---|---|\n");
        List<String> missed = new ArrayList<>();
        for (String mode : List.of("stream", "write")) {
            for (int size : sizes) {
                String unit = size <= 4 * KIB ? "msgs/s" : "MB/s";
                String field = unit.equals("msgs/s") ? "msgs_per_s" : "mb_per_s";
                Spread n = spread("native", mode, size, field);
                Spread r = spread("rivulet", mode, size, field);
                if (n == null || r == null) {
                    continue;
                }
                double ratio = r.median / n.median;
                String target = "—";
                String met = "";
                if (size >= 64 * KIB) {
                    target = "≥ 0.9";
                    met = ratio >= 0.9 ? "yes" : "**no**";
                } else if (mode.equals("stream") && size == 64) {
                    target = "> 1 (coalescing)";
                    met = ratio > 1 ? "yes" : "**no**";
                }
                if (met.startsWith("**")) {
                    missed.add(mode + " " + sizeName(size));
                }
                b.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %.2f | %s | %s |%n",
                        new Test(mode, size).label(), sizeName(size), unit, fmt(n.median, unit), range(n, unit),
                        fmt(r.median, unit), range(r, unit), ratio, target, met));
            }
        }
        for (int size : sizes) {
            Spread n = spread("native", "stream", size, "mb_per_s");
            Spread r = spread("rivulet", "stream-rndv", size, "mb_per_s");
            if (n != null && r != null) {
                double ratio = r.median / n.median;
                b.append(String.format(Locale.ROOT, "| streaming send with the default 64 KiB eager size (Rivulet's "
                                + "rendezvous: fi_read of a per-message registration; same native figures) | %s | MB/s "
                                + "| %s | %s | %s | %s | %.2f | (≥ 0.9) | %s |%n", sizeName(size), fmt(n.median, "MB/s"),
                        range(n, "MB/s"), fmt(r.median, "MB/s"), range(r, "MB/s"), ratio,
                        ratio >= 0.9 ? "yes" : "no (not a headline row)"));
            }
        }
        Spread np = spread("native", "pingpong", 64, "rtt_median_us");
        Spread rp = spread("rivulet", "pingpong", 64, "rtt_median_us");
        if (np != null && rp != null) {
            double ratio = rp.median / np.median;
            boolean ok = ratio <= 1.3;
            if (!ok) {
                missed.add("ping-pong 64 B");
            }
            b.append(String.format(Locale.ROOT, "| ping-pong, median round trip (one way = half) | 64 B | µs | %s | "
                            + "%s | %s | %s | %.2f | ≤ 1.3 | %s |%n", fmt(np.median, "us"), range(np, "us"),
                    fmt(rp.median, "us"), range(rp, "us"), ratio, ok ? "yes" : "**no**"));
        }
        Spread nn = spread("netty", "netty", 64, "msgs_per_s");
        Spread r64 = spread("rivulet", "stream", 64, "msgs_per_s");
        if (nn != null && r64 != null) {
            double ratio = r64.median / nn.median;
            boolean ok = ratio >= 1.0;
            if (!ok) {
                missed.add("64 B streaming vs Reactor Netty");
            }
            b.append(String.format(Locale.ROOT, "| Reactor Netty TCP streaming (NIO, 64-byte frames) in place of "
                            + "native | 64 B | msgs/s | %s | %s | %s | %s | %.2f | ≥ 1 (Rivulet / Netty) | %s |%n",
                    fmt(nn.median, "msgs/s"), range(nn, "msgs/s"), fmt(r64.median, "msgs/s"),
                    range(r64, "msgs/s"), ratio, ok ? "yes" : "**no**"));
        }
        b.append('\n');
        // Native writes with FI_DELIVERY_COMPLETE: what Rivulet's puts ask the provider for.
        StringBuilder dc = new StringBuilder();
        for (int size : sizes) {
            String unit = size <= 4 * KIB ? "msgs/s" : "MB/s";
            String field = unit.equals("msgs/s") ? "msgs_per_s" : "mb_per_s";
            Spread d = spread("native", "write-dc", size, field);
            Spread r = spread("rivulet", "write", size, field);
            if (d != null && r != null) {
                dc.append(String.format(Locale.ROOT, "%s %s %s (min .. max %s; Rivulet / this %.2f); ",
                        sizeName(size), fmt(d.median, unit), unit, range(d, unit), r.median / d.median));
            }
        }
        if (!dc.isEmpty()) {
            b.append("Native `fi_writemsg(FI_DELIVERY_COMPLETE)` (how Rivulet posts puts on this provider, so "
                    + "that `flush` means remote completion), medians: ").append(dc, 0, dc.length() - 2)
                    .append(".\n\n");
        }
        // Allocation.
        Spread ca = spread("rivulet", "stream", 64, "client_alloc_b_per_msg");
        Spread sa = spread("rivulet", "stream", 64, "server_alloc_b_per_msg");
        Spread frames = spread("rivulet", "stream", 64, "coalesced_frames");
        Spread pa = spread("rivulet", "write", sizes.contains(64) ? 64 : sizes.get(0), "client_alloc_b_per_msg");
        Spread nca = spread("netty", "netty", 64, "client_alloc_b_per_msg");
        Spread nsa = spread("netty", "netty", 64, "server_alloc_b_per_msg");
        if (ca != null && sa != null) {
            long count = count("stream", 64);
            b.append(String.format(Locale.ROOT, "Allocation (Java heap, all threads of the JVM, "
                            + "`ThreadMXBean.getTotalThreadAllocatedBytes` around the timed phase), medians: Rivulet "
                            + "64 B streaming **%.1f B/message in the sending JVM, %.1f B/message in the receiving "
                            + "JVM** (min .. max %.1f .. %.1f and %.1f .. %.1f)", ca.median, sa.median, ca.min, ca.max,
                    sa.min, sa.max));
            if (frames != null) {
                b.append(String.format(Locale.ROOT, "; %.0f messages per coalesced frame on average (%.0f frames "
                        + "for %d messages)", count / Math.max(1, frames.median), frames.median, count));
            }
            if (pa != null) {
                b.append(String.format(Locale.ROOT, "; Rivulet puts (`flatMap(put)`) %.0f B/put", pa.median));
            }
            if (nca != null && nsa != null) {
                b.append(String.format(Locale.ROOT, "; Reactor Netty %.1f B/message sending, %.1f B/message "
                        + "receiving", nca.median, nsa.median));
            }
            b.append(".\n\n");
        }
        // Counts.
        b.append("Messages per measurement: ");
        List<String> cs = new ArrayList<>();
        for (String mode : List.of("stream", "write")) {
            for (int size : sizes) {
                cs.add(mode + " " + sizeName(size) + " " + count(mode, size) + " (window " + window(size) + ")");
            }
        }
        cs.add("ping-pong " + count("pingpong", 64) + " round trips");
        cs.add("Netty " + count("netty", 64));
        b.append(String.join(", ", cs)).append("; each preceded by an untimed tenth as warm-up.\n\n");
        b.append(missed.isEmpty() ? "All targets met in this run.\n"
                : "Targets missed in this run: " + String.join(", ", missed) + ".\n");
        return b.toString();
    }

    private String gitHead() {
        try {
            Process p = new ProcessBuilder("git", "rev-parse", "--short", "HEAD").directory(moduleDir.toFile())
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor() == 0 ? "`" + out + "`" : "(unknown)";
        } catch (IOException | InterruptedException e) {
            return "(unknown)";
        }
    }

    private String loadAverages() {
        return loadBefore + " / " + loadAverage() + " (1 min)";
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "?";
        }
    }

}
