package dev.rivulet.samples.bench.interaction;

import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.samples.bench.CommandLoop;
import dev.rivulet.samples.bench.Options;
import dev.rivulet.samples.bench.ResultLine;
import io.rsocket.transport.netty.server.CloseableChannel;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

import static dev.rivulet.samples.bench.BenchWire.allocated;

/**
 * One side of {@link InteractionBenchCli}, run in a JVM of its own so that client and server are two processes: Rivulet
 * over io_uring and over {@code shm://} and RSocket over TCP between the same two JVMs.
 *
 * <pre>
 * InteractionBenchNode server [--idle default|spin]
 *     prints "READY &lt;uring uri&gt; &lt;shm uri&gt; &lt;rsocket port&gt; &lt;uring echo uri&gt; &lt;shm echo uri&gt;",
 *     serves until its stdin closes (the echo listeners echo every message: {@link EchoSide}); "alloc" answers
 *     "OK alloc=BYTES" (this JVM's heap allocation so far); "hot uring|shm" and "cold" switch --idle spin's
 *     busy-polling to one transport and off, on both nodes.
 * InteractionBenchNode client [--idle default|spin] --uring URI --shm URI --rsocket-port PORT
 *     --uring-echo URI --shm-echo URI
 *     prints "READY", then answers each "IMPL-MEASUREMENT SIZE COUNT" on stdin with one "RESULT k=v ..." (or
 *     "ERROR ...") line, IMPL one of uring, shm, rsocket and MEASUREMENT one of rr1 (request-response, one in
 *     flight), rr256 (256 in flight), stream (one request-stream of COUNT payloads); uringecho and shmecho
 *     are the bound, plain endpoint messages ({@link EchoSide}); "quit" ends it.
 * </pre>
 *
 * <p>Each measurement starts with an untimed tenth of its count on the same connection. The RESULT line's
 * {@code requests} counts everything the command asked of the server, warm-up included, for the allocation per
 * request the CLI works out from both JVMs' counters read around the command.
 */
public final class InteractionBenchNode {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    /** Requests in flight of the rr256 measurement. */
    static final int WINDOW = 256;

    private InteractionBenchNode() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: InteractionBenchNode server|client [--idle default|spin] "
                    + "[--uring URI --shm URI --rsocket-port PORT]");
            System.exit(64);
        }
        Map<String, String> o = Options.parse(args, 1);
        boolean spin = "spin".equals(o.get("idle"));
        Transport uring = Transports.open("io_uring", config(spin, "uring"));
        Transport shm = Transports.open("shm", config(spin, "shm"));
        switch (args[0]) {
            case "server" -> server(uring, shm);
            case "client" -> client(uring, shm, o);
            default -> {
                System.err.println("unknown role " + args[0]);
                System.exit(64);
            }
        }
        uring.dispose();
        shm.dispose();
        System.exit(0);
    }

    private static TransportConfig config(boolean spin, String transport) {
        TransportConfig c = TransportConfig.defaults();
        return spin ? c.idleStrategy(() -> HotTransport.idle(transport)) : c;
    }

    private static void server(Transport uring, Transport shm) throws Exception {
        Listener u = uring.bind("uring://127.0.0.1:0").block(TIMEOUT);
        Listener s = shm.bind("shm://rivulet-interactions-" + ProcessHandle.current().pid()).block(TIMEOUT);
        Listener ue = uring.bind("uring://127.0.0.1:0").block(TIMEOUT);
        Listener se = shm.bind("shm://rivulet-echo-" + ProcessHandle.current().pid()).block(TIMEOUT);
        u.accepted().subscribe(RivuletSide::serve);
        s.accepted().subscribe(RivuletSide::serve);
        ue.accepted().subscribe(EchoSide::serve);
        se.accepted().subscribe(EchoSide::serve);
        CloseableChannel rsocket = RSocketSide.serve();
        System.out.println("READY " + u.address() + " " + s.address() + " " + rsocket.address().getPort() + " "
                + ue.address() + " " + se.address());
        System.out.flush();
        CommandLoop.serve(line -> line.equals("alloc") ? "OK alloc=" + allocated() : HotTransport.command(line));
        rsocket.dispose();
        u.dispose();
        s.dispose();
        ue.dispose();
        se.dispose();
    }

    private static void client(Transport uring, Transport shm, Map<String, String> o) throws Exception {
        Requesting<Payload> onUring = RivuletSide.requesting(uring.connect(o.get("uring")).block(TIMEOUT));
        Requesting<Payload> onShm = RivuletSide.requesting(shm.connect(o.get("shm")).block(TIMEOUT));
        RSocketSide.Client rsocket = RSocketSide.connect(Integer.parseInt(o.get("rsocket-port")));
        Requesting<Buffer> uringEcho = EchoSide.requesting(uring.connect(o.get("uring-echo")).block(TIMEOUT),
                uring.connect(o.get("uring-echo")).block(TIMEOUT));
        Requesting<Buffer> shmEcho = EchoSide.requesting(shm.connect(o.get("shm-echo")).block(TIMEOUT),
                shm.connect(o.get("shm-echo")).block(TIMEOUT));
        System.out.println("READY");
        System.out.flush();
        CommandLoop.run(HotTransport::command, (mode, size, count) -> {
            String impl = mode.substring(0, mode.indexOf('-'));
            String measurement = mode.substring(mode.indexOf('-') + 1);
            return switch (impl) {
                case "uring" -> measure(impl, onUring, measurement, size, count);
                case "shm" -> measure(impl, onShm, measurement, size, count);
                case "rsocket" -> measure(impl, rsocket, measurement, size, count);
                case "uringecho" -> measure(impl, uringEcho, measurement, size, count);
                case "shmecho" -> measure(impl, shmEcho, measurement, size, count);
                default -> throw new IllegalArgumentException("unknown implementation " + impl);
            };
        });
        rsocket.close();
    }

    /** One measurement of {@code side}, with an untimed tenth before it; the RESULT line. */
    private static <P> String measure(String impl, Requesting<P> side, String measurement, int size, long count)
            throws Exception {
        long warm = Math.max(1, count / 10);
        String where = "transport=" + (impl.equals("rsocket") ? "tcp" : impl.replace("echo", ""));
        long a0 = allocated();
        String line = switch (measurement) {
            case "rr1" -> ResultLine.pingpong(impl, where, size,
                    InteractionDriver.roundTrips(side, size, (int) warm, (int) count, TIMEOUT));
            case "rr256" -> {
                InteractionDriver.inFlight(side, size, warm, WINDOW, TIMEOUT);
                double seconds = InteractionDriver.inFlight(side, size, count, WINDOW, TIMEOUT);
                yield rate(impl, "rr256", where, size, count, seconds);
            }
            case "stream" -> {
                InteractionDriver.stream(side, size, warm, TIMEOUT);
                double seconds = InteractionDriver.stream(side, size, count, TIMEOUT);
                yield rate(impl, "stream", where, size, count, seconds);
            }
            default -> throw new IllegalArgumentException("unknown measurement " + measurement);
        };
        long requests = count + warm;
        return line + String.format(Locale.ROOT, " requests=%d client_alloc_b_per_req=%.1f", requests,
                (allocated() - a0) / (double) requests);
    }

    /** A rate: requests (or streamed payloads) and megabytes of payload data per second. */
    private static String rate(String impl, String mode, String where, int size, long count, double seconds) {
        return String.format(Locale.ROOT, "RESULT impl=%s mode=%s %s size=%d count=%d seconds=%.6f msgs_per_s=%.1f "
                + "mb_per_s=%.3f", impl, mode, where, size, count, seconds, count / seconds,
                count * (double) size / seconds / 1e6);
    }
}
