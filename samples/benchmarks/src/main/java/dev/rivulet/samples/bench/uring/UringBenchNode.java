package dev.rivulet.samples.bench.uring;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.progress.IdleStrategy;
import dev.rivulet.rio.uring.UringTransportProvider;
import dev.rivulet.samples.bench.Ack;
import dev.rivulet.samples.bench.ClientSide;
import dev.rivulet.samples.bench.CommandLoop;
import dev.rivulet.samples.bench.CopyGen;
import dev.rivulet.samples.bench.Options;
import dev.rivulet.samples.bench.ResultLine;
import dev.rivulet.samples.bench.ServerSide;
import dev.rivulet.samples.bench.SwitchableIdle;
import dev.rivulet.samples.bench.netty.NettyClient;
import dev.rivulet.samples.bench.netty.NettyPeer;
import reactor.netty.DisposableServer;

import java.time.Duration;
import java.util.Locale;
import java.util.Map;

import static dev.rivulet.samples.bench.BenchWire.allocated;

/**
 * One side of {@link UringBenchCli}'s JVM measurements, run in a JVM of its own so that client and server are two
 * processes, as the native baseline's are: Rivulet over io_uring and Reactor Netty TCP between the same two JVMs.
 *
 * <pre>
 * UringBenchNode server [--idle default|spin|blocking] [--depth N] [--uring uring.zeroCopy=false,...]
 *     prints "READY &lt;uring uri&gt; &lt;reactor-netty port&gt;", serves until its stdin closes.
 * UringBenchNode client [--idle default|spin|blocking] [--depth N] --address &lt;uring uri&gt; --netty-port &lt;port&gt;
 *     prints "READY", then answers each command on stdin with one "RESULT k=v ..." (or "ERROR ...") line:
 *     "stream SIZE COUNT", "pingpong SIZE COUNT", "netty-stream SIZE COUNT", "netty-pingpong SIZE COUNT", "quit".
 * </pre>
 *
 * <p>Every message starts with a {@link dev.rivulet.samples.bench.BenchWire} header, and both implementations do
 * the same work per streamed message: Rivulet sends one prepared registered buffer again and again ({@link CopyGen},
 * a reference per send) with {@code Endpoint.send(Publisher)} to a {@code receive()} subscriber that reads each
 * message's header; Reactor Netty, configured by {@link NettyPeer}, sends retained duplicates of one prepared frame (a
 * 4-byte length and the message) with {@code NettyOutbound.send(Publisher<ByteBuf>)} to a server that reads each
 * frame's header where the socket's buffer holds it. Ping-pong: Rivulet with {@code send(Buffer)} from inside the
 * client's {@code receive()} subscriber, the server sending the received buffer itself back; Netty writes each ping
 * from its inbound subscriber on the event loop ({@link NettyClient}).
 */
public final class UringBenchNode {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    private UringBenchNode() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 1) {
            System.err.println("usage: UringBenchNode server|client [--idle default|spin|blocking] [--depth N] "
                    + "[--address URI --netty-port PORT]");
            System.exit(64);
        }
        Map<String, String> o = Options.parse(args, 1);
        int depth = Integer.parseInt(o.getOrDefault("depth", Integer.toString(TransportConfig.DEFAULT_QUEUE_DEPTH)));
        TransportConfig config = TransportConfig.defaults().sendQueueDepth(depth).receiveQueueDepth(depth)
                .sendPrefetch(depth);
        if ("spin".equals(o.get("idle"))) {
            config = config.idleStrategy(SwitchableIdle::new);
        } else if ("blocking".equals(o.get("idle"))) {
            config = config.idleStrategy(IdleStrategy::blocking);
        }
        // --uring k=v,k=v: transport options such as uring.zeroCopy or uring.copyLimit, for experiments.
        for (String kv : o.getOrDefault("uring", "").split(",")) {
            if (kv.contains("=")) {
                config = config.option(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
            }
        }
        Transport t = new UringTransportProvider().open(config);
        switch (args[0]) {
            case "server" -> server(t);
            case "client" -> client(t, o.get("address"), Integer.parseInt(o.get("netty-port")));
            default -> {
                System.err.println("unknown role " + args[0]);
                System.exit(64);
            }
        }
        t.dispose();
        System.exit(0);
    }

    // ============================================================================================== server

    private static void server(Transport t) throws Exception {
        Listener l = t.bind("uring://127.0.0.1:0").block(TIMEOUT);
        l.accepted().subscribe(ep -> ep.receive().subscribe(new ServerSide(ep, UringBenchNode::report)));
        DisposableServer netty = NettyPeer.serve();
        System.out.println("READY " + l.address() + " " + netty.port());
        System.out.flush();
        CommandLoop.serve();
        netty.disposeNow(Duration.ofSeconds(5));
        l.dispose();
    }

    // ============================================================================================== client

    private static void client(Transport t, String address, int nettyPort) throws Exception {
        Endpoint ep = t.connect(address).block(TIMEOUT);
        ClientSide cs = new ClientSide(UringBenchNode::report);
        ep.receive().subscribe(cs);
        NettyClient netty = new NettyClient(nettyPort, UringBenchNode::report);
        Client c = new Client(ep, cs, netty);
        System.out.println("READY");
        System.out.flush();
        CommandLoop.run((mode, size, count) -> switch (mode) {
            case "stream" -> c.stream(size, count);
            case "pingpong" -> c.pingpong(size, (int) count);
            case "netty-stream" -> c.nettyStream(size, count);
            case "netty-pingpong" -> c.nettyPingpong(size, (int) count);
            default -> throw new IllegalArgumentException("unknown command " + mode);
        });
        netty.close();
        ep.dispose();
    }

    record Client(Endpoint ep, ClientSide cs, NettyClient netty) {

        private static long warmOf(long count) {
            return Math.max(1, count / 10);
        }

        String stream(int size, long count) throws Exception {
            try (CopyGen g = new CopyGen(ep.memory(), size)) {
                cs.phase(ep, g.messages(warmOf(count)), warmOf(count), TIMEOUT);
                long a0 = allocated();
                long t0 = System.nanoTime();
                Ack a = cs.phase(ep, g.messages(count), count, TIMEOUT);
                return streamResult("rivulet", "io_uring", size, count, t0, a0, a);
            }
        }

        String nettyStream(int size, long count) throws Exception {
            NettyClient.Timed t = netty.stream(size, count, TIMEOUT);
            return streamResult("netty", netty.channel(), size, count, t.startNanos(), t.allocatedBefore(), t.ack());
        }

        private static String streamResult(String impl, String transport, int size, long count, long t0, long a0,
                                           Ack a) {
            long a1 = allocated();
            double secs = (a.nanos() - t0) / 1e9;
            return String.format(Locale.ROOT, "RESULT impl=%s mode=stream transport=%s size=%d count=%d seconds=%.6f "
                            + "msgs_per_s=%.1f mb_per_s=%.3f client_alloc_b_per_msg=%.2f server_alloc_b_per_msg=%.2f",
                    impl, transport, size, count, secs, count / secs, count * (double) size / secs / 1e6,
                    (a1 - a0) / (double) count, a.serverAlloc() / (double) count);
        }

        String pingpong(int size, int count) throws Exception {
            return ResultLine.pingpong("rivulet", "transport=io_uring", size, cs.pingpong(ep, size, count, TIMEOUT));
        }

        String nettyPingpong(int size, int count) throws Exception {
            return ResultLine.pingpong("netty", "transport=" + netty.channel(), size,
                    netty.pingpong(size, count, TIMEOUT));
        }
    }

    static void report(Throwable t) {
        System.err.println("uring-bench node: " + t);
    }
}
