package dev.rivulet.samples.bench.fabric;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteWrite;
import dev.rivulet.samples.bench.Ack;
import dev.rivulet.samples.bench.CommandLoop;
import dev.rivulet.samples.bench.CopyGen;
import dev.rivulet.samples.bench.Options;
import dev.rivulet.samples.bench.ResultLine;
import dev.rivulet.samples.bench.SwitchableIdle;
import dev.rivulet.samples.bench.TargetClientSide;
import dev.rivulet.samples.bench.TargetServerSide;
import dev.rivulet.samples.bench.netty.NettyClient;
import dev.rivulet.samples.bench.netty.NettyPeer;
import reactor.core.publisher.Flux;
import reactor.netty.DisposableServer;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.rivulet.samples.bench.BenchWire.allocated;

/**
 * One side of the Rivulet half of {@link FabricBenchCli}, run in a JVM of its own so that client and server are two
 * processes, as the native baseline's are.
 *
 * <pre>
 * FabricBenchNode server --provider tcp --eager 65536 --depth 128
 *     prints "READY &lt;fabric uri&gt; &lt;reactor-netty port&gt;", serves until its stdin closes.
 * FabricBenchNode client --provider tcp --eager 65536 --depth 128 --address &lt;fabric uri&gt; --netty-port &lt;port&gt;
 *     prints "READY", then reads commands on stdin and answers each with one "RESULT k=v ..." (or "ERROR ...")
 *     line: "stream SIZE COUNT", "write SIZE COUNT", "pingpong SIZE COUNT", "netty SIZE COUNT", "quit".
 * </pre>
 *
 * <p>Every message starts with a {@link dev.rivulet.samples.bench.BenchWire} header.
 *
 * <p>Both sides use the public API only: {@code Endpoint.send(Publisher)} of one prepared buffer sent again and
 * again ({@link CopyGen}, a reference per send, as the native program reposts its registered buffers and the
 * Reactor Netty peer sends retained duplicates of one frame, {@link NettyPeer}) to a {@code receive()} subscriber
 * that reads each message's header; streamed {@code put(Publisher)} (or one {@code put} Mono each through
 * {@code flatMap}) then {@code flush}; {@code send(Buffer)} / {@code receive()} for ping-pong (the server sends the
 * received buffer itself back). Transports use the default configuration unless {@code --idle spin}: then
 * {@link SwitchableIdle}, which busy-polls between the parent's "hot" and "cold" commands (sent to both nodes around
 * each Rivulet measurement) and backs off otherwise, and {@code fabric.completionWait=none}, as the native program
 * polls {@code FI_WAIT_NONE} queues. {@code --progress manual} sets {@code fabric.dataProgress=manual} (the CLI then runs the native program
 * with {@code -m}).
 */
public final class FabricBenchNode {

    /** Reactor Netty comparison: every message is this many bytes (after the frame's 4-byte length). */
    static final int NETTY_MESSAGE = 64;
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    private FabricBenchNode() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: FabricBenchNode server|client --provider P --eager BYTES --depth N "
                    + "[--receive-depth N] [--address URI --netty-port PORT] [--idle default|spin] "
                    + "[--progress provider|manual|auto]");
            System.exit(64);
        }
        Map<String, String> o = Options.parse(args, 1);
        String provider = o.getOrDefault("provider", "tcp");
        int eager = Integer.parseInt(o.getOrDefault("eager", "65536"));
        int depth = Integer.parseInt(o.getOrDefault("depth", "128"));
        // The receive queue depth is the credit window a sender gets; a provider whose messages wait for its own
        // thread's wake-up (sockets) needs a window that covers that delay (FabricBenchCli --receive-depth).
        int receiveDepth = Integer.parseInt(o.getOrDefault("receive-depth", Integer.toString(depth)));
        TransportConfig config = TransportConfig.defaults()
                .option("fabric.provider", provider)
                .option("fabric.eagerSize", Integer.toString(eager))
                .sendQueueDepth(depth).receiveQueueDepth(receiveDepth).sendPrefetch(depth)
                .option("fabric.dataProgress", o.getOrDefault("progress", "provider"));
        if ("spin".equals(o.get("idle"))) {
            // Configured for busy polling as the native program is: completion queues without a wait fd
            // (FI_WAIT_NONE, cheaper to poll on tcp), progress threads spinning while measured.
            config = config.idleStrategy(SwitchableIdle::new).option("fabric.completionWait", "none");
        }
        switch (args[0]) {
            case "server" -> server(config, provider, eager);
            case "client" -> client(config, provider, eager, depth, o.get("address"),
                    Integer.parseInt(o.getOrDefault("netty-port", "0")));
            default -> {
                System.err.println("unknown role " + args[0]);
                System.exit(64);
            }
        }
    }

    // ============================================================================================== server

    private static void server(TransportConfig config, String provider, int eager) throws IOException {
        Transport t = Transports.open("libfabric", config);
        Listener l = t.bind("fabric://127.0.0.1:0?provider=" + provider).block(TIMEOUT);
        Arena arena = Arena.ofShared();
        // The RMA target: one registered buffer as large as the largest message of this configuration.
        MemoryRegion target = t.memory().register(arena.allocate(eager, 4096), Access.REMOTE_WRITE,
                Access.REMOTE_READ);
        l.accepted().subscribe(ep -> ep.receive().subscribe(new TargetServerSide(ep,
                ep.grant(target.slice(), Access.REMOTE_WRITE, Access.REMOTE_READ).remote().toBytes(),
                FabricBenchNode::report)));
        DisposableServer netty = NettyPeer.serve();
        System.out.println("READY " + l.address() + " " + netty.port());
        System.out.flush();
        CommandLoop.serve();
        netty.disposeNow(Duration.ofSeconds(5));
        l.dispose();
        t.dispose();
        target.close();
        System.exit(0);
    }

    // ============================================================================================== client

    private static void client(TransportConfig config, String provider, int eager, int depth, String address,
                               int nettyPort) throws Exception {
        Transport t = Transports.open("libfabric", config);
        Endpoint ep = t.connect(address).block(TIMEOUT);
        TargetClientSide cs = new TargetClientSide(FabricBenchNode::report);
        ep.receive().subscribe(cs);
        RemoteMemory target = cs.target.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        Arena arena = Arena.ofShared();
        MemoryRegion source = t.memory().register(arena.allocate(eager, 4096));
        source.segment().fill((byte) 0x5a);
        NettyClient netty = nettyPort > 0 ? new NettyClient(nettyPort, FabricBenchNode::report) : null;
        Client c = new Client(provider, depth, ep, cs, target, source, netty);
        System.out.println("READY");
        System.out.flush();
        CommandLoop.run((mode, size, count) -> switch (mode) {
            case "stream" -> c.stream(size, count);
            case "write" -> c.write(size, count, true);
            case "write-each" -> c.write(size, count, false);
            case "pingpong" -> c.pingpong(size, (int) count);
            case "netty" -> c.netty(count);
            default -> throw new IllegalArgumentException("unknown command " + mode);
        });
        if (netty != null) {
            netty.close();
        }
        ep.dispose();
        t.dispose();
        source.close();
        System.exit(0);
    }

    record Client(String provider, int depth, Endpoint ep, TargetClientSide cs, RemoteMemory target, MemoryRegion source,
                  NettyClient nettyClient) {

        private static long warmOf(long count) {
            return Math.max(1, count / 10);
        }

        String stream(int size, long count) throws Exception {
            EndpointStats s0;
            long a0;
            long t0;
            Ack a;
            long a1;
            try (CopyGen g = new CopyGen(ep.memory(), size)) {
                cs.phase(ep, g.messages(warmOf(count)), warmOf(count), TIMEOUT);
                s0 = ep.stats().block(TIMEOUT);
                a0 = allocated();
                t0 = System.nanoTime();
                a = cs.phase(ep, g.messages(count), count, TIMEOUT);
                a1 = allocated();
            }
            EndpointStats s1 = ep.stats().block(TIMEOUT);
            double secs = (a.nanos() - t0) / 1e9;
            long frames = s1.coalescedFrames() - s0.coalescedFrames();
            return String.format(Locale.ROOT, "RESULT impl=rivulet mode=stream provider=%s size=%d count=%d "
                            + "window=%d seconds=%.6f msgs_per_s=%.1f mb_per_s=%.3f client_alloc_b_per_msg=%.2f "
                            + "server_alloc_b_per_msg=%.2f coalesced_frames=%d credit_stalls=%d retries=%d", provider,
                    size, count, depth, secs, count / secs, count * (double) size / secs / 1e6,
                    (a1 - a0) / (double) count, a.serverAlloc() / (double) count, frames,
                    s1.creditStalls() - s0.creditStalls(), s1.noResourceRetries() - s0.noResourceRetries());
        }

        /**
         * {@code n} puts of {@code local} into {@code remote}, then a flush. {@code streamed}: one
         * {@code put(Publisher<RemoteWrite>)} (demand = free send slots, no Mono per put); otherwise one
         * {@code put(local, remote)} Mono per put through {@code flatMap} with the same window.
         */
        private void puts(RegisteredSlice local, RemoteMemory remote, long n, boolean streamed) {
            if (streamed) {
                RemoteWrite w = new RemoteWrite(local, remote);
                ep.put(Flux.fromIterable(Collections.nCopies((int) n, w))).then(ep.flush()).block(TIMEOUT);
            } else {
                Flux.range(0, (int) n).flatMap(i -> ep.put(local, remote), depth, 1).then(ep.flush())
                        .block(TIMEOUT);
            }
        }

        String write(int size, long count, boolean streamed) {
            RegisteredSlice local = source.slice(0, size);
            RemoteMemory remote = target.slice(0, size);
            puts(local, remote, warmOf(count), streamed);
            long a0 = allocated();
            long t0 = System.nanoTime();
            puts(local, remote, count, streamed);
            long t1 = System.nanoTime();
            long a1 = allocated();
            double secs = (t1 - t0) / 1e9;
            return String.format(Locale.ROOT, "RESULT impl=rivulet mode=%s provider=%s size=%d count=%d "
                            + "window=%d seconds=%.6f msgs_per_s=%.1f mb_per_s=%.3f client_alloc_b_per_msg=%.2f",
                    streamed ? "write" : "write-each", provider, size, count, depth, secs, count / secs,
                    count * (double) size / secs / 1e6, (a1 - a0) / (double) count);
        }

        String pingpong(int size, int count) throws Exception {
            return ResultLine.pingpong("rivulet", "provider=" + provider, size,
                    cs.pingpong(ep, size, count, TIMEOUT));
        }

        String netty(long count) throws Exception {
            if (nettyClient == null) {
                throw new IllegalStateException("no reactor-netty server");
            }
            NettyClient.Timed t = nettyClient.stream(NETTY_MESSAGE, count, TIMEOUT);
            double secs = t.seconds();
            return String.format(Locale.ROOT, "RESULT impl=netty mode=stream provider=tcp size=%d count=%d "
                            + "seconds=%.6f msgs_per_s=%.1f mb_per_s=%.3f client_alloc_b_per_msg=%.2f "
                            + "server_alloc_b_per_msg=%.2f", NETTY_MESSAGE, count, secs, count / secs,
                    count * (double) NETTY_MESSAGE / secs / 1e6,
                    (t.allocatedAfter() - t.allocatedBefore()) / (double) count, t.ack().serverAlloc() / (double) count);
        }
    }

    static void report(Throwable t) {
        System.err.println("fabric-bench node: " + t);
    }
}
