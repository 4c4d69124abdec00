package dev.rivulet.samples.bench.interaction;

import dev.rivulet.samples.bench.ChildJvm;
import dev.rivulet.samples.bench.CliArgs;
import dev.rivulet.samples.bench.Machine;
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

import static dev.rivulet.samples.bench.Results.sizeName;
import static dev.rivulet.samples.bench.Results.value;

/**
 * The interaction-model benchmark: Rivulet's request-response and request-stream over io_uring and over
 * {@code shm://} against RSocket-java over TCP (Reactor Netty), between two JVMs, in one invocation, each measurement
 * repeated {@code --runs} times in rotating order after one untimed pass, medians and spread printed as a table
 * ({@code bin/bench --only interactions} puts it into {@code docs/benchmarks/interactions.md}).
 *
 * <pre>
 * . bin/env.sh
 * ./mvnw -B -ntp -pl samples/benchmarks -am install -DskipTests
 * java -cp samples/benchmarks/target/benchmarks.jar dev.rivulet.samples.bench.interaction.InteractionBenchCli
 *      [--runs 3] [--idle default|spin] [--scale 1.0] [--max-wait 120] [--no-quiet-gate] [--label TEXT]
 *      [--impls uring,shm,rsocket,uringecho,shmecho] [--measurements rr1,rr256,stream] [--sizes 64,4096,65536]
 *      [--results PATH] [--report PATH]
 * </pre>
 *
 * <p>Measurements: request-response with one request in flight (median round trip) and with
 * {@value InteractionBenchNode#WINDOW} in flight (requests/s), at 64 B and 4 KiB, and one request-stream of 64 KiB
 * payloads (MB/s); as the bound of each Rivulet transport, the same exchanges as plain messages of an endpoint
 * ({@link EchoSide}). {@code --idle spin} has the measured transport's polling threads busy-poll during each of its
 * measurements; the default leaves them on Rivulet's default idle strategy (RSocket's event loops block in epoll
 * either way).
 * Allocation per request is each JVM's heap allocation (all threads) read around the whole command, warm-up included,
 * divided by the requests it made. {@code --impls}, {@code --measurements} and {@code --sizes} run a subset (to
 * profile one measurement, say, or only the {@code shm://} cases with their bound and RSocket:
 * {@code --impls shm,shmecho,rsocket --measurements rr256,stream --sizes 4096,65536}); the table then holds what
 * ran. What runs where: two JVMs started with this JVM's class path
 * ({@link InteractionBenchNode} server and client), kept for the whole invocation; this JVM only orchestrates.
 */
public final class InteractionBenchCli implements CliArgs.SideBySide {

    static final String URING = "uring";
    static final String SHM = "shm";
    static final String RSOCKET = "rsocket";
    /** The bound of each Rivulet transport: the same requests as plain messages an endpoint echoes. */
    static final String URING_ECHO = "uringecho";
    static final String SHM_ECHO = "shmecho";
    private static final List<String> ALL = List.of(URING, SHM, RSOCKET, URING_ECHO, SHM_ECHO);
    private static final List<List<String>> ORDERS = List.of(ALL, List.of(SHM, RSOCKET, URING_ECHO, SHM_ECHO, URING),
            List.of(RSOCKET, URING_ECHO, SHM_ECHO, URING, SHM));

    /** One measurement: the node's measurement name, the mode its runs are filed under, the payload size. */
    record Test(String measurement, String mode, int size) {
    }

    /** rr1 is filed as "pingpong", so that the suite's latency chart finds it as it finds the other CLIs'. */
    static final List<Test> TESTS = List.of(new Test("rr1", "pingpong", 64), new Test("rr1", "pingpong", 4096),
            new Test("rr256", "rr256", 64), new Test("rr256", "rr256", 4096), new Test("stream", "stream", 65536));

    private final int runs;
    private final String idle;
    private final double scale;
    private final Path moduleDir;
    private final Machine machine;
    private final String label;
    private final String commandLine;
    private final List<String> impls;
    private final List<Test> tests;
    private final Results results = new Results();

    InteractionBenchCli(Map<String, String> o, Path moduleDir, String commandLine) {
        this.runs = Integer.parseInt(o.getOrDefault("runs", "3"));
        this.idle = o.getOrDefault("idle", "default");
        this.scale = Double.parseDouble(o.getOrDefault("scale", "1.0"));
        this.moduleDir = moduleDir;
        // As UringBenchCli: at most 30 s of waiting per measurement and --max-wait seconds in all.
        this.machine = new Machine(!o.containsKey("no-quiet-gate"), 30,
                Long.parseLong(o.getOrDefault("max-wait", "120")));
        this.label = o.get("label");
        this.commandLine = commandLine;
        this.impls = List.of(o.getOrDefault("impls", String.join(",", ALL)).split(","));
        List<String> measurements = List.of(o.getOrDefault("measurements", "rr1,rr256,stream").split(","));
        List<String> sizes = List.of(o.getOrDefault("sizes", "64,4096,65536").split(","));
        this.tests = TESTS.stream().filter(t -> measurements.contains(t.measurement())
                && sizes.contains(Integer.toString(t.size()))).toList();
        if (!List.of("default", "spin").contains(idle)) {
            throw new IllegalArgumentException("--idle must be default or spin");
        }
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = Options.parse(args, 0);
        if (o.containsKey("help")) {
            System.out.println("usage: InteractionBenchCli [--runs N] [--idle default|spin] [--scale F] "
                    + "[--max-wait SECONDS] [--no-quiet-gate] [--label TEXT] [--impls uring,shm,rsocket,uringecho,shmecho] "
                    + "[--measurements rr1,rr256,stream] [--sizes 64,4096,65536] [--results PATH] [--report PATH]");
            return;
        }
        CliArgs.runAndReport(o, new InteractionBenchCli(o, CliArgs.workDir(),
                CliArgs.commandLine(args)));
    }

    /** Requests (or streamed payloads) per measurement: about half a second each for RSocket here. */
    long count(Test t) {
        long n = switch (t.measurement()) {
            case "rr1" -> 10_000;
            case "rr256" -> 200_000;
            default -> 20_000;
        };
        return Math.max(20, Math.round(n * scale));
    }

    @Override
    public Results results() {
        return results;
    }

    @Override
    public void run() throws Exception {
        List<String> common = List.of("--idle", idle);
        try (ChildJvm server = ChildJvm.start(InteractionBenchNode.class, "server", common, moduleDir, Map.of())) {
            String[] ready = server.ready().split(" ");
            List<String> clientArgs = new ArrayList<>(common);
            clientArgs.addAll(List.of("--uring", ready[1], "--shm", ready[2], "--rsocket-port", ready[3],
                    "--uring-echo", ready[4], "--shm-echo", ready[5]));
            try (ChildJvm client = ChildJvm.start(InteractionBenchNode.class, "client", clientArgs, moduleDir,
                    Map.of())) {
                client.ready();
                // One untimed pass so the JIT has compiled the hot paths of both JVMs before the first recorded run.
                for (Test t : tests) {
                    for (String impl : ORDERS.getFirst()) {
                        if (impls.contains(impl)) {
                            measure(server, client, impl, t, false);
                        }
                    }
                }
                for (int r = 1; r <= runs; r++) {
                    for (Test t : tests) {
                        machine.waitQuiet();
                        for (String impl : ORDERS.get((r - 1) % ORDERS.size())) {
                            if (impls.contains(impl)) {
                                measure(server, client, impl, t, true);
                            }
                        }
                    }
                    System.out.println("# run " + r + "/" + runs + " done");
                }
                client.command("quit", false);
            }
        }
    }

    /** One measurement between the two nodes, with the server's allocation read around it. */
    private void measure(ChildJvm server, ChildJvm client, String impl, Test t, boolean record) throws IOException {
        boolean hot = idle.equals("spin") && !impl.equals(RSOCKET);
        long before = serverAllocated(server);
        if (hot) {
            String transport = impl.replace("echo", "");
            server.command("hot " + transport, true);
            client.command("hot " + transport, true);
        }
        String line = client.command(impl + "-" + t.measurement() + " " + t.size() + " " + count(t), true);
        if (hot) {
            server.command("cold", true);
            client.command("cold", true);
        }
        if (!line.startsWith("RESULT ")) {
            throw new IllegalStateException(impl + " " + t + " failed: " + line);
        }
        Map<String, String> m = Results.parse(line);
        double serverPerRequest = (serverAllocated(server) - before) / Double.parseDouble(m.get("requests"));
        m.put("server_alloc_b_per_req", String.format(Locale.ROOT, "%.1f", serverPerRequest));
        if (!record) {
            System.out.println("# warm-up: " + line);
            return;
        }
        System.out.println(line + " server_alloc_b_per_req=" + m.get("server_alloc_b_per_req"));
        results.add(impl, t.mode(), t.size(), m);
    }

    private static long serverAllocated(ChildJvm server) throws IOException {
        String answer = server.command("alloc", true);
        if (!answer.startsWith("OK alloc=")) {
            throw new IllegalStateException("the server answered '" + answer + "' to alloc");
        }
        return Long.parseLong(answer.substring("OK alloc=".length()));
    }

    // ============================================================================================== report

    @Override
    public String header(double seconds) {
        return String.format(Locale.ROOT, "Loopback, Rivulet's %s; %d recorded runs of each measurement after one "
                        + "untimed pass; whole invocation %.0f s. Taken %s on %d vCPUs, load average before/after %s. "
                        + "Command: `InteractionBenchCli %s`.%n%n", idle.equals("spin")
                        ? "polling threads busy-polling during each Rivulet measurement" : "default idle strategy",
                runs, seconds, LocalDate.now(), Runtime.getRuntime().availableProcessors(), machine.loadAverages(),
                commandLine) + machine.provenance(label, moduleDir);
    }

    @Override
    public String table() {
        StringBuilder b = new StringBuilder();
        b.append("| measurement | size | unit | Rivulet median (min .. max) | RSocket TCP median (min .. max) "
                + "| Rivulet / RSocket | bound: plain endpoint messages median (/ RSocket) "
                + "| Rivulet heap per request, client; server | target | met? |\n");
        b.append("|---|---:|---|---:|---:|---:|---:|---:|---|---|\n");
        List<String> met = new ArrayList<>();
        List<String> missed = new ArrayList<>();
        for (String impl : List.of(URING, SHM)) {
            for (Test t : tests) {
                row(b, impl, t, met, missed);
            }
        }
        b.append('\n');
        b.append("Per request both sides do the same work, each at its best: ").append(METHOD).append(' ')
                .append(NettyPeer.method().replaceFirst("; per message.*", "")).append(" for RSocket's TCP "
                        + "transport.\n\n");
        b.append("Requests per measurement: ").append(String.join(", ", tests.stream().map(t -> name(t) + " "
                + sizeName(t.size()) + " " + count(t)).distinct().toList())).append("; each preceded by an untimed "
                + "tenth on the same connection. Allocation: each JVM's heap allocation (all threads) around the "
                + "whole command, warm-up included, per request (per streamed payload for the stream); the driver's "
                + "own subscriber is part of it. The bound: the same driver and requests over the same transport as "
                + "plain messages of an endpoint, with no interaction layer between: request-responses that the "
                + "server's endpoint echoes, matched to their requests by order, and the stream as `receive()` of the "
                + "messages the server sends (what the transport itself allows these exchanges).\n\n");
        b.append("Targets met: ").append(met.isEmpty() ? "none" : String.join(", ", met)).append(". Targets missed: ")
                .append(missed.isEmpty() ? "none" : String.join(", ", missed)).append(".\n");
        return b.toString();
    }

    /** What each side does per request, for the table's notes. */
    static final String METHOD = "both send payloads built from data prepared once (Rivulet `Payload.of` of a "
            + "retained registered buffer, RSocket `ByteBufPayload` of a retained duplicate of a pooled direct "
            + "buffer), both responders answer a request-response with as many prepared bytes as it carried and a "
            + "request-stream with prepared payloads under the requester's credits (256, topped up by 128), and "
            + "both requesters read each answer's length and give it back per its contract (Rivulet's are lent, "
            + "RSocket's released: `PayloadDecoder.ZERO_COPY` on both ends).";

    private void row(StringBuilder b, String impl, Test t, List<String> met, List<String> missed) {
        boolean latency = t.mode().equals("pingpong");
        String field = latency ? "rtt_median_us" : t.mode().equals("stream") ? "mb_per_s" : "msgs_per_s";
        String unit = latency ? "µs" : t.mode().equals("stream") ? "MB/s" : "requests/s";
        String valueUnit = latency ? "us" : t.mode().equals("stream") ? "MB/s" : "msgs/s";
        Spread r = results.spread(impl, t.mode(), t.size(), field);
        Spread n = results.spread(RSOCKET, t.mode(), t.size(), field);
        if (r == null || n == null) {
            return;
        }
        Spread echo = results.spread(impl + "echo", t.mode(), t.size(), field);
        String bound = echo == null ? "—" : String.format(Locale.ROOT, "%s (%.2f)", value(echo.median(), valueUnit),
                echo.median() / n.median());
        Spread ac = results.spread(impl, t.mode(), t.size(), "client_alloc_b_per_req");
        Spread as = results.spread(impl, t.mode(), t.size(), "server_alloc_b_per_req");
        double ratio = r.median() / n.median();
        String what = (impl.equals(URING) ? "io_uring " : "shm:// ") + name(t);
        String target;
        boolean ok;
        if (impl.equals(URING) && t.mode().equals("stream")) {
            target = "—";
            ok = true;
        } else if (latency) {
            double most = impl.equals(URING) ? 0.5 : 0.2;
            target = String.format(Locale.ROOT, "≤ %.1f × RSocket", most);
            ok = ratio <= most;
        } else {
            double least = impl.equals(URING) ? 2 : 5;
            target = String.format(Locale.ROOT, "≥ %.0f × RSocket", least);
            ok = ratio >= least;
        }
        String verdict = "";
        if (!target.equals("—")) {
            (ok ? met : missed).add(what + " " + sizeName(t.size()));
            verdict = ok ? "yes" : "**no**";
        }
        b.append(String.format(Locale.ROOT,
                "| %s | %s | %s | %s (%s) | %s (%s) | %.2f | %s | %.0f; %.0f B | %s | %s |%n",
                what + (latency ? " (median round trip, lower is better)" : ""), sizeName(t.size()), unit,
                value(r.median(), valueUnit), r.range(valueUnit), value(n.median(), valueUnit), n.range(valueUnit),
                ratio, bound, ac == null ? Double.NaN : ac.median(), as == null ? Double.NaN : as.median(), target,
                verdict));
    }

    private static String name(Test t) {
        return switch (t.measurement()) {
            case "rr1" -> "request-response 1 in flight";
            case "rr256" -> "request-response " + InteractionBenchNode.WINDOW + " in flight";
            default -> "request-stream";
        };
    }
}
