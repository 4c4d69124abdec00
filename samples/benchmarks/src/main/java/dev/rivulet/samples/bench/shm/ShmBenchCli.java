package dev.rivulet.samples.bench.shm;

import dev.rivulet.samples.bench.ChildJvm;
import dev.rivulet.samples.bench.CliArgs;
import dev.rivulet.samples.bench.Machine;
import dev.rivulet.samples.bench.NativeProgram;
import dev.rivulet.samples.bench.Options;
import dev.rivulet.samples.bench.Results;
import dev.rivulet.samples.bench.Results.Spread;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static dev.rivulet.samples.bench.Results.KIB;
import static dev.rivulet.samples.bench.Results.fieldOf;
import static dev.rivulet.samples.bench.Results.sizeName;
import static dev.rivulet.samples.bench.Results.unitOf;
import static dev.rivulet.samples.bench.Results.value;

/**
 * The shared-memory benchmark: Rivulet on {@code shm://}, Rivulet on libfabric's {@code shm} provider and Aeron IPC,
 * each between two processes on this host, and a single-thread copy as the ceiling for puts, in one invocation, each
 * measurement repeated {@code --runs} times in rotating order after an untimed pass, medians and spread printed as a
 * table ({@code bin/bench --only rivulet-shm} puts it into {@code docs/benchmarks.md} with its charts).
 *
 * <pre>
 * . bin/env.sh
 * ./mvnw -B -ntp -pl samples/benchmarks -am install -DskipTests
 * java -cp samples/benchmarks/target/benchmarks.jar dev.rivulet.samples.bench.shm.ShmBenchCli [--runs 3]
 *      [--idle spin|default] [--scale 1.0] [--sizes 64,4096,65536,1048576] [--max-wait 120] [--no-quiet-gate]
 *      [--label TEXT] [--shm shm.option=value,...] [--depth N] [--aeron-channel CHANNEL] [--aeron-driver backoff|spin]
 *      [--modes stream,pingpong,put] [--impls rivulet,fabric-shm,aeron,memcpy] [--results PATH] [--report PATH]
 * </pre>
 *
 * <p>Streaming and the one-way latency (64-byte ping-pong, half the median round trip) run on all three; puts (at the
 * sizes of 64 KiB and up) on both Rivulet transports and the copy. {@code --idle spin} (the default) has Rivulet's
 * polling threads busy-poll during each Rivulet measurement, as Aeron's threads do during its own (Aeron always runs
 * as its low-latency samples do); {@code --idle default} leaves Rivulet on its default idle strategy.
 * {@code --results} and {@code --report} write the recorded runs and the table for
 * {@link dev.rivulet.samples.bench.suite.BenchSuite}, as the other CLIs do. {@code --modes} and {@code --impls} run a
 * subset (to profile one measurement, say); the table then judges only what ran.
 *
 * <p>What runs where: two JVMs started with this JVM's classpath ({@link ShmBenchNode} server and client), kept for
 * the whole invocation, host all three implementations; the server's JVM also runs Aeron's embedded media driver
 * (its directory under {@code /dev/shm}, deleted when it closes). The client's JVM also makes the Java copy
 * ({@code MemorySegment.copy}); the C copy is {@code samples/benchmarks/src/main/c/memcpy_bench.c}, compiled here with
 * {@code gcc -O2 -o target/memcpy_bench src/main/c/memcpy_bench.c} (in {@code samples/benchmarks/}) and skipped where
 * that fails. This JVM only orchestrates.
 */
public final class ShmBenchCli implements CliArgs.SideBySide {

    /** Rivulet on shm://, filed as "rivulet" so that it keeps Rivulet's colour in the suite's charts. */
    static final String SHM = "rivulet";
    static final String FABRIC = "fabric-shm";
    static final String AERON = "aeron";
    /** MemorySegment.copy in the client's JVM: the ceiling a put is held to. */
    static final String MEMCPY = "memcpy";
    /** The C library's memcpy, for reference. */
    static final String MEMCPY_C = "memcpy-c";
    /**
     * The order rotates from run to run, so that none always runs first; puts take the copy where streaming takes
     * Aeron (Aeron has no puts).
     */
    private static final List<List<String>> ORDERS = List.of(List.of(SHM, FABRIC, AERON),
            List.of(FABRIC, AERON, SHM), List.of(AERON, SHM, FABRIC));

    /**
     * Heap bytes per message (beyond what a phase allocates once) below which a JVM counts as allocating nothing
     * per message. An object allocated for every message costs at least 16 bytes a message, one for every sixteen
     * at least 1 byte; what remains below that is the JVM's own background (timers, heartbeats, the idle
     * transports), which grows with the phase's duration and so with the message size: about 0.4 B a message at
     * 1 MiB here.
     */
    static final double ZERO_ALLOCATION = 1.0;

    /** One measurement kind: stream, pingpong or put at a size. */
    record Test(String mode, int size) {
    }

    private final int runs;
    private final String idle;
    private final double scale;
    private final List<Integer> sizes;
    private final Path moduleDir;
    private final Machine machine;
    private final String label;
    private final String commandLine;
    private final String shmOptions;
    /** --depth: Rivulet shm://'s queue depths (credit window), null for the default. */
    private final String depth;
    private final String aeronChannel;
    private final String aeronDriver;
    /** --modes and --impls: a subset, for profiling one measurement; the table judges what ran. */
    private final List<String> modes;
    private final List<String> impls;
    private final Results results = new Results();
    private NativeProgram memcpyC;
    private String memcpyCMissing;
    private boolean fabricMissing;

    ShmBenchCli(Map<String, String> o, Path moduleDir, String commandLine) {
        this.runs = Integer.parseInt(o.getOrDefault("runs", "3"));
        this.idle = o.getOrDefault("idle", "spin");
        this.scale = Double.parseDouble(o.getOrDefault("scale", "1.0"));
        this.sizes = CliArgs.sizes(o);
        this.moduleDir = moduleDir;
        // As UringBenchCli: at most 30 s of waiting per measurement and --max-wait seconds in all.
        this.machine = new Machine(!o.containsKey("no-quiet-gate"), 30,
                Long.parseLong(o.getOrDefault("max-wait", "120")));
        this.label = o.get("label");
        this.commandLine = commandLine;
        this.shmOptions = o.get("shm");
        this.depth = o.get("depth");
        this.aeronChannel = o.getOrDefault("aeron-channel", ShmBenchNode.DEFAULT_AERON_CHANNEL);
        this.aeronDriver = o.getOrDefault("aeron-driver", "backoff");
        this.modes = List.of(o.getOrDefault("modes", "stream,pingpong,put").split(","));
        this.impls = List.of(o.getOrDefault("impls", String.join(",", SHM, FABRIC, AERON, MEMCPY)).split(","));
        if (!List.of("spin", "default").contains(idle)) {
            throw new IllegalArgumentException("--idle must be spin or default");
        }
        if (!List.of("spin", "backoff").contains(aeronDriver)) {
            throw new IllegalArgumentException("--aeron-driver must be backoff or spin");
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = Options.parse(args, 0);
        if (o.containsKey("help")) {
            System.out.println("usage: ShmBenchCli [--runs N] [--idle spin|default] [--scale F] "
                    + "[--sizes 64,4096,65536,1048576] [--max-wait SECONDS] [--no-quiet-gate] [--label TEXT] "
                    + "[--shm shm.option=value,...] [--depth N] [--aeron-channel CHANNEL] "
                    + "[--aeron-driver backoff|spin] "
                    + "[--modes stream,pingpong,put] [--impls rivulet,fabric-shm,aeron,memcpy] [--results PATH] "
                    + "[--report PATH]");
            return;
        }
        CliArgs.runAndReport(o, new ShmBenchCli(o, CliArgs.moduleDir("memcpy_bench.c"), CliArgs.commandLine(args)));
    }

    // ============================================================================================== plan

    /**
     * Messages (round trips, puts, copies) of {@code impl} per measurement, chosen so that one takes roughly 0.3 to
     * 1.5 s here: long enough that a scheduler tick does not decide it. The implementations differ by an order of
     * magnitude in places, so their counts do too: Aeron streams small messages and answers pings several times
     * faster than Rivulet (its 32 MiB publication window alone holds 350 000 64-byte messages), the copy runs at
     * about twice a put's rate, and puts over libfabric at a quarter of those on shm://.
     */
    long count(String impl, String mode, int size) {
        long n = switch (mode) {
            case "stream" -> size <= 64 ? 1_000_000 : size <= 4 * KIB ? 300_000 : size <= 64 * KIB ? 120_000
                    : 8_000;
            // A loop that sleeps between messages takes tens of microseconds a round trip.
            case "pingpong" -> idle.equals("spin") ? 300_000 : 50_000;
            case "put" -> size <= 64 * KIB ? 400_000 : 30_000;
            default -> throw new IllegalArgumentException(mode);
        };
        double factor = switch (impl) {
            case AERON -> mode.equals("pingpong") ? 4 : !mode.equals("stream") ? 1 : size <= 64 ? 20
                    : size <= 4 * KIB ? 4 : 1;
            case FABRIC -> mode.equals("put") ? 0.25 : 1;
            case MEMCPY, MEMCPY_C -> 2;
            default -> 1;
        };
        return Math.max(mode.equals("pingpong") ? 20 : 10, Math.round(n * factor * scale));
    }

    /** Every streaming size, 64-byte ping-pong, then puts at the sizes of 64 KiB and up. */
    List<Test> tests() {
        List<Test> t = new ArrayList<>();
        sizes.forEach(s -> t.add(new Test("stream", s)));
        t.add(new Test("pingpong", 64));
        sizes.stream().filter(s -> s >= 64 * KIB).forEach(s -> t.add(new Test("put", s)));
        t.removeIf(test -> !modes.contains(test.mode));
        return t;
    }

    /** The implementations of {@code t} in the order of run {@code r} (from 1). */
    private List<String> order(Test t, int r) {
        return ORDERS.get((r - 1) % ORDERS.size()).stream()
                .map(impl -> t.mode.equals("put") && impl.equals(AERON) ? MEMCPY : impl)
                .filter(impl -> impls.contains(impl) && !(impl.equals(FABRIC) && fabricMissing)).toList();
    }

    @Override
    public Results results() {
        return results;
    }

    @Override
    public void run() throws Exception {
        try {
            memcpyC = NativeProgram.compile(moduleDir, "memcpy_bench", "", Map.of());
        } catch (IllegalStateException | IOException e) {
            memcpyCMissing = e.getMessage();
            System.out.println("# the C copy is left out: " + e.getMessage());
        }
        int largest = sizes.stream().mapToInt(Integer::intValue).max().orElse(64);
        List<String> common = new ArrayList<>(List.of("--idle", idle, "--aeron-channel", aeronChannel,
                "--aeron-driver", aeronDriver, "--max-size", Integer.toString(largest),
                "--target-bytes", Integer.toString(Math.max(4096, (largest + 4095) / 4096 * 4096))));
        if (shmOptions != null) {
            common.addAll(List.of("--shm", shmOptions));
        }
        if (depth != null) {
            common.addAll(List.of("--depth", depth));
        }
        System.out.printf(Locale.ROOT, "# Rivulet: shm:// and fabric://?provider=shm, default TransportConfig%s, "
                + "idle %s; Aeron: %s, embedded media driver (SHARED, %s)%n", shmOptions == null ? ""
                : " with " + shmOptions, idle, aeronChannel, aeronDriver.equals("spin")
                ? "busy-spinning while Aeron is measured" : "default backoff");
        String aeronDir = null;
        try (ChildJvm server = ChildJvm.start(ShmBenchNode.class, "server", common, moduleDir, Map.of())) {
            String[] ready = server.ready().split(" ");
            aeronDir = ready[3];
            fabricMissing = ready[2].equals("-");
            if (fabricMissing) {
                System.out.println("# Rivulet on libfabric shm is left out: the provider could not be opened");
            }
            List<String> clientArgs = new ArrayList<>(common);
            clientArgs.addAll(List.of("--shm-address", ready[1], "--fabric-address", ready[2], "--aeron-dir",
                    aeronDir));
            try (ChildJvm client = ChildJvm.start(ShmBenchNode.class, "client", clientArgs, moduleDir, Map.of())) {
                client.ready();
                // One untimed pass so the JIT has compiled the hot paths of both JVMs before the first recorded run.
                for (Test t : tests()) {
                    for (String impl : order(t, 1)) {
                        measure(server, client, impl, t, false);
                    }
                }
                for (int r = 1; r <= runs; r++) {
                    for (Test t : tests()) {
                        machine.waitQuiet();
                        for (String impl : order(t, r)) {
                            measure(server, client, impl, t, true);
                        }
                    }
                    System.out.println("# run " + r + "/" + runs + " done");
                }
                client.command("quit", false);
            }
        } finally {
            // The driver deletes its directory when it closes; this covers a server that did not get to close it.
            if (aeronDir != null) {
                deleteTree(Path.of(aeronDir));
            }
        }
    }

    /** One measurement of {@code impl}; the copies are the Java one in the client's JVM and the C program. */
    private void measure(ChildJvm server, ChildJvm client, String impl, Test t, boolean record)
            throws IOException, InterruptedException {
        if (impl.equals(MEMCPY)) {
            String n = Long.toString(count(MEMCPY, t.mode, t.size));
            file(MEMCPY, t, client.command("memcpy " + t.size + " " + n, true), record);
            if (memcpyC != null && record) {
                results.add(MEMCPY_C, t.mode, t.size, Results.parse(memcpyC.run(List.of(Integer.toString(t.size), n))));
            }
            return;
        }
        String prefix = switch (impl) {
            case SHM -> "shm";
            case FABRIC -> "fabric";
            default -> "aeron";
        };
        // Aeron always busy-polls while measured, as its low-latency samples do; Rivulet with --idle spin.
        boolean hot = impl.equals(AERON) || idle.equals("spin");
        if (hot) {
            server.command("hot " + prefix, true);
            client.command("hot " + prefix, true);
        }
        String line = client.command(prefix + "-" + t.mode + " " + t.size + " " + count(impl, t.mode, t.size),
                true);
        if (hot) {
            server.command("cold", true);
            client.command("cold", true);
        }
        file(impl, t, line, record);
    }

    private void file(String impl, Test t, String line, boolean record) {
        if (!line.startsWith("RESULT ")) {
            throw new IllegalStateException(impl + " " + t.mode + " " + t.size + " failed: " + line);
        }
        if (!record) {
            System.out.println("# warm-up: " + line);
            return;
        }
        System.out.println(line);
        results.add(impl, t.mode, t.size, Results.parse(line));
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    // ============================================================================================== report

    /** What ran, when, on what and how long it waited for the machine: the dated paragraphs above {@link #table()}. */
    @Override
    public String header(double seconds) {
        StringBuilder b = new StringBuilder();
        String idleText = idle.equals("spin")
                ? "Rivulet's polling threads busy-polling during each Rivulet measurement and backing off by the "
                + "default strategy between measurements"
                : "Rivulet's default idle strategy (200 spins, 10 yields, then parks of 10 µs doubling to 10 ms; on "
                + "shm:// a sleep on the connection's futex)";
        if (shmOptions != null) {
            idleText += "; Rivulet shm:// options `" + shmOptions + "`";
        }
        if (depth != null) {
            idleText += "; Rivulet shm:// queue depths " + depth;
        }
        b.append(String.format(Locale.ROOT, "Two processes on one host, %s; Aeron `%s` with an embedded media driver "
                        + "(SHARED threading, %s), its publisher and subscriber busy-polling while measured; %d "
                        + "recorded runs of each measurement "
                        + "in rotating order after one untimed pass; whole invocation %.0f s. Taken %s on %d vCPUs, "
                        + "load average before/after %s. Command: `ShmBenchCli %s`.%n%n",
                idleText, aeronChannel, aeronDriver.equals("spin") ? "its agent busy-spinning while Aeron is "
                        + "measured" : "its agent on Aeron's default backoff, which measured faster here than a "
                        + "third spinning thread", runs, seconds, LocalDate.now(),
                Runtime.getRuntime().availableProcessors(), machine.loadAverages(), commandLine));
        b.append(machine.provenance(label, moduleDir));
        return b.toString();
    }

    /** The result table and the notes under it (floors, copies, allocation, counts, targets), without dates. */
    @Override
    public String table() {
        StringBuilder b = new StringBuilder();
        b.append("| measurement | size | unit | Rivulet shm:// median (min .. max) | Rivulet libfabric shm median "
                + "(min .. max) | Aeron IPC median (min .. max) | memcpy median (min .. max) | shm:// / Aeron | "
                + "shm:// / libfabric shm | shm:// / memcpy | target | met? |\n");
        b.append("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
        List<String> met = new ArrayList<>();
        List<String> missed = new ArrayList<>();
        for (int size : sizes) {
            String unit = unitOf(size);
            String field = fieldOf(unit);
            Spread s = results.spread(SHM, "stream", size, field);
            Spread f = results.spread(FABRIC, "stream", size, field);
            Spread a = results.spread(AERON, "stream", size, field);
            if (s == null) {
                continue;
            }
            String target = "—";
            String ok = "";
            if (size == 64 && a != null) {
                // Judged on the runs paired back to back: the machine changes mode between runs (see the notes).
                Spread paired = results.pairedRatio(SHM, AERON, "stream", size, field);
                target = "≥ 1 × Aeron (never < 0.5 ×)";
                boolean floor = paired.min() >= 0.5;
                boolean median = paired.median() >= 1.0;
                ok = (median && floor ? "yes" : floor ? "**no** (above the floor)" : "**no**, below the floor")
                        + String.format(Locale.ROOT, " (paired %.2f, lowest %.2f)", paired.median(), paired.min());
                (median && floor ? met : missed).add("64 B streaming vs Aeron");
            }
            b.append(row("streaming", sizeName(size), unit, s, f, a, null, target, ok));
        }
        Spread sp = results.spread(SHM, "pingpong", 64, "oneway_median_us");
        if (sp != null) {
            Spread fp = results.spread(FABRIC, "pingpong", 64, "oneway_median_us");
            Spread ap = results.spread(AERON, "pingpong", 64, "oneway_median_us");
            String ok = "";
            if (ap != null) {
                Spread paired = results.pairedRatio(SHM, AERON, "pingpong", 64, "oneway_median_us");
                boolean good = paired.median() <= 1.0;
                ok = (good ? "yes" : "**no**") + String.format(Locale.ROOT, " (paired %.2f)", paired.median());
                (good ? met : missed).add("64 B one-way latency vs Aeron");
            }
            b.append(row("one-way latency (ping-pong median / 2; lower is better)", "64 B", "µs", sp, fp, ap, null,
                    ap == null ? "—" : "≤ 1 × Aeron", ok));
        }
        for (int size : sizes) {
            Spread s = gb(results.spread(SHM, "put", size, "mb_per_s"));
            if (s == null) {
                continue;
            }
            Spread f = gb(results.spread(FABRIC, "put", size, "mb_per_s"));
            Spread m = gb(results.spread(MEMCPY, "put", size, "mb_per_s"));
            List<String> verdicts = new ArrayList<>();
            List<String> targets = new ArrayList<>();
            if (m != null) {
                targets.add("≥ 0.75 × memcpy");
                verdicts.add(verdict(s.median() / m.median() >= 0.75, MEMCPY, sizeName(size) + " put", met, missed));
            }
            if (f != null) {
                targets.add("≥ 2 × libfabric shm");
                verdicts.add(verdict(s.median() / f.median() >= 2.0, "libfabric shm", sizeName(size) + " put", met,
                        missed));
            }
            b.append(row("streamed puts into a granted window, then flush", sizeName(size), "GB/s", s, f, null, m,
                    targets.isEmpty() ? "—" : String.join(", ", targets), String.join(", ", verdicts)));
        }
        for (int size : sizes) {
            Spread sc = results.spread(SHM, "stream", size, "client_alloc_slope_b_per_msg");
            Spread ss = results.spread(SHM, "stream", size, "server_alloc_slope_b_per_msg");
            if (sc == null || ss == null) {
                continue;
            }
            boolean zero = Math.abs(sc.median()) < ZERO_ALLOCATION && Math.abs(ss.median()) < ZERO_ALLOCATION;
            (zero ? met : missed).add(sizeName(size) + " allocation");
            b.append(String.format(Locale.ROOT, "| heap allocated per message, streaming (sending / receiving JVM) "
                            + "| %s | B | %s | %s | %s | — | | | | 0 B | %s |%n", sizeName(size),
                    alloc(SHM, size), alloc(FABRIC, size), alloc(AERON, size), zero ? "yes" : "**no**"));
        }
        b.append('\n');
        notes(b);
        b.append("Targets met: ").append(met.isEmpty() ? "none" : String.join(", ", met)).append(". Targets missed: ")
                .append(missed.isEmpty() ? "none" : String.join(", ", missed)).append(".\n");
        return b.toString();
    }

    /** The notes under the table: paired ratios, the C copy, what was left out, counts. */
    private void notes(StringBuilder b) {
        Spread paired = results.pairedRatio(SHM, AERON, "stream", 64, "msgs_per_s");
        Spread pairedPing = results.pairedRatio(SHM, AERON, "pingpong", 64, "oneway_median_us");
        if (paired != null || pairedPing != null) {
            b.append("Paired by run (the implementations of a run measured back to back), Rivulet shm:// / Aeron, "
                    + "which the targets against Aeron are judged on: round trips and rates on this VM change mode "
                    + "between measurements (by up to three times, with where the host runs the two vCPUs at the "
                    + "moment), so a ratio of medians taken minutes apart can mix modes;");
            if (paired != null) {
                b.append(String.format(Locale.ROOT, " 64 B streaming median %.2f, min .. max %.2f .. %.2f over %d "
                        + "runs (the floor on the lowest);", paired.median(), paired.min(), paired.max(),
                        paired.n()));
            }
            if (pairedPing != null) {
                b.append(String.format(Locale.ROOT, " one-way latency median %.2f, min .. max %.2f .. %.2f.",
                        pairedPing.median(), pairedPing.min(), pairedPing.max()));
            }
            b.append("\n\n");
        }
        b.append("Puts: Rivulet's `put(Publisher<RemoteWrite>)` of the same local bytes into the same window of the "
                + "server's, which on shm:// the server allocated with `MemoryDomain.allocateRegion` (a shared "
                + "mapping) and granted: the client maps the window at its first put, and each put is then one copy "
                + "by the client. memcpy: `MemorySegment.copy` between the same two native buffers, over and over, "
                + "on one thread of the client's JVM");
        List<String> c = new ArrayList<>();
        for (int size : sizes) {
            Spread m = gb(results.spread(MEMCPY_C, "put", size, "mb_per_s"));
            Spread s = gb(results.spread(SHM, "put", size, "mb_per_s"));
            if (m != null && s != null) {
                c.add(String.format(Locale.ROOT, "%s %s GB/s (%s .. %s; shm:// / C %.2f)", sizeName(size),
                        gbValue(m.median()), gbValue(m.min()), gbValue(m.max()), s.median() / m.median()));
            }
        }
        if (!c.isEmpty()) {
            b.append("; the C library's `memcpy` (`memcpy_bench.c`) for reference, medians: ")
                    .append(String.join(", ", c));
        } else if (memcpyCMissing != null) {
            b.append("; the C copy was left out (").append(memcpyCMissing).append(')');
        }
        b.append(".\n\n");
        b.append("Allocation: Java heap bytes of all threads of each JVM "
                + "(`ThreadMXBean.getTotalThreadAllocatedBytes`) per message beyond what a phase allocates once: "
                + "the difference between the timed phase and the untimed tenth before it, divided by the difference "
                + "in messages, so that a phase's own publisher, futures and acknowledgement do not count; medians. "
                + "The target counts as met below " + ZERO_ALLOCATION + " B a message in each JVM: an object for "
                + "every message would cost at least 16 B a message; below 1 B is the JVMs' own background (timers, "
                + "heartbeats), which grows with a phase's duration.");
        List<String> totals = new ArrayList<>();
        for (int size : sizes) {
            Spread sending = results.spread(SHM, "stream", size, "client_alloc_b_per_msg");
            Spread receiving = results.spread(SHM, "stream", size, "server_alloc_b_per_msg");
            if (sending != null && receiving != null) {
                totals.add(String.format(Locale.ROOT, "%s %.2f / %.2f", sizeName(size), sending.median(),
                        receiving.median()));
            }
        }
        if (!totals.isEmpty()) {
            b.append(" Rivulet shm://'s whole timed phase divided by its messages, sending / receiving JVM: ")
                    .append(String.join(", ", totals)).append(" B.");
        }
        b.append("\n\n");
        b.append("Streaming: `send(Publisher<Buffer>)` of pooled buffers to a `receive()` subscriber that checks each "
                + "message's sequence number and releases it; Aeron: `tryClaim` for messages that fit one frame, "
                + "`offer` for larger ones, from one exclusive publication, and a `Subscription.poll` handler that "
                + "reads each message's header where the log buffer holds it (Aeron's receiver copies nothing; "
                + "Rivulet's copies each message into a pooled buffer). Rates count messages from the first sent to "
                + "the server's acknowledgement of the last.\n\n");
        if (fabricMissing) {
            b.append("Rivulet on libfabric shm was not measured: libfabric's shm provider could not be opened here, "
                    + "so the targets against it are not judged.\n\n");
        }
        b.append("Messages per measurement (Rivulet shm://): ").append(sizes.stream()
                        .map(s -> sizeName(s) + " " + number(count(SHM, "stream", s)))
                        .collect(Collectors.joining(", ")))
                .append("; ping-pong ").append(number(count(SHM, "pingpong", 64))).append(" round trips; puts ")
                .append(sizes.stream().filter(s -> s >= 64 * KIB)
                        .map(s -> sizeName(s) + " " + number(count(SHM, "put", s))).collect(Collectors.joining(", ")))
                .append("; Aeron twenty times as many 64 B messages, four times as many up to 4 KiB and four times "
                        + "the round trips, libfabric a quarter of the puts, the copies twice as many; each preceded "
                        + "by an untimed tenth.\n\n");
    }

    private static String number(long n) {
        return value(n, "msgs/s");
    }

    private String alloc(String impl, int size) {
        Spread c = results.spread(impl, "stream", size, "client_alloc_slope_b_per_msg");
        Spread s = results.spread(impl, "stream", size, "server_alloc_slope_b_per_msg");
        return c == null || s == null ? "—" : bytes(c.median()) + " / " + bytes(s.median());
    }

    /** A per-message byte count; a difference of two measurements, so noise can take it just below zero. */
    private static String bytes(double b) {
        return String.format(Locale.ROOT, "%.2f", Math.abs(b) < 0.005 ? 0.0 : b);
    }

    private static String row(String what, String size, String unit, Spread shm, Spread fabric, Spread aeron,
                              Spread memcpy, String target, String ok) {
        return String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", what, size,
                unit, cell(shm, unit), cell(fabric, unit), cell(aeron, unit), cell(memcpy, unit),
                ratio(shm, aeron), ratio(shm, fabric), ratio(shm, memcpy), target, ok);
    }

    private static String ratio(Spread a, Spread b) {
        return a == null || b == null ? "—" : String.format(Locale.ROOT, "%.2f", a.median() / b.median());
    }

    private static String verdict(boolean ok, String against, String what, List<String> met, List<String> missed) {
        (ok ? met : missed).add(what + " vs " + against);
        return against + (ok ? " yes" : " **no**");
    }

    private static String cell(Spread s, String unit) {
        if (s == null) {
            return "—";
        }
        if (unit.equals("GB/s")) {
            return gbValue(s.median()) + " (" + gbValue(s.min()) + " .. " + gbValue(s.max()) + ")";
        }
        return value(s.median(), unit) + " (" + s.range(unit) + ")";
    }

    /** MB/s as GB/s. */
    private static Spread gb(Spread mb) {
        return mb == null ? null : new Spread(mb.min() / 1e3, mb.median() / 1e3, mb.max() / 1e3, mb.n());
    }

    private static String gbValue(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
