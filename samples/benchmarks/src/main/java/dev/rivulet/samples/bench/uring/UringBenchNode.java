package dev.rivulet.samples.bench.uring;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.progress.IdleStrategy;
import dev.rivulet.rio.uring.UringTransportProvider;
import dev.rivulet.samples.bench.Ack;
import dev.rivulet.samples.bench.BufferGen;
import dev.rivulet.samples.bench.ClientSide;
import dev.rivulet.samples.bench.CommandLoop;
import dev.rivulet.samples.bench.NettyFrameGen;
import dev.rivulet.samples.bench.Options;
import dev.rivulet.samples.bench.ResultLine;
import dev.rivulet.samples.bench.SeqCounter;
import dev.rivulet.samples.bench.ServerSide;
import dev.rivulet.samples.bench.SwitchableIdle;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.AdaptiveRecvByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.epoll.Epoll;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import reactor.core.publisher.Flux;
import reactor.core.publisher.SynchronousSink;
import reactor.netty.Connection;
import reactor.netty.DisposableServer;
import reactor.netty.tcp.TcpClient;
import reactor.netty.tcp.TcpServer;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static dev.rivulet.samples.bench.BenchWire.ACK;
import static dev.rivulet.samples.bench.BenchWire.DATA;
import static dev.rivulet.samples.bench.BenchWire.LAST;
import static dev.rivulet.samples.bench.BenchWire.PING;
import static dev.rivulet.samples.bench.BenchWire.PONG;
import static dev.rivulet.samples.bench.BenchWire.allocated;
import static dev.rivulet.samples.bench.BenchWire.header;
import static dev.rivulet.samples.bench.BenchWire.seq;
import static dev.rivulet.samples.bench.BenchWire.type;

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
 * <p>Every message starts with a {@link dev.rivulet.samples.bench.BenchWire} header. Rivulet: {@code
 * Endpoint.send(Publisher)} of pooled buffers to a {@code receive()} subscriber that releases every buffer; ping-pong
 * with {@code send(Buffer)} from inside the client's {@code receive()} subscriber, the server sending the received
 * buffer itself back. Reactor Netty: frames of a 4-byte length and the message, {@code
 * NettyOutbound.send(Publisher<ByteBuf>)} of pooled direct buffers; the server reads the frames in place from
 * {@code NettyInbound.receive()} ({@link NettyServerSide}) and answers through its own {@code send(Publisher)}; the
 * client decodes the small answers ({@link LengthFieldBasedFrameDecoder}) and writes each ping from its inbound
 * subscriber on the event loop.
 */
public final class UringBenchNode {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final int NETTY_MAX_FRAME = 16 << 20;

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

    /**
     * The length-prefixed framing of the Reactor Netty side, for the client's small answers (acks and pongs): the
     * decoder strips the 4-byte length.
     */
    static LengthFieldBasedFrameDecoder frameDecoder() {
        return new LengthFieldBasedFrameDecoder(NETTY_MAX_FRAME, 0, 4, 0, 4);
    }

    // ============================================================================================== server

    private static void server(Transport t) throws Exception {
        Listener l = t.bind("uring://127.0.0.1:0").block(TIMEOUT);
        l.accepted().subscribe(ep -> ep.receive().subscribe(new ServerSide(ep, UringBenchNode::report)));
        // No frame decoder on the receiving side: NettyServerSide reads each frame's header where the socket's
        // buffer holds it and skips the payload, so Netty neither copies nor aggregates what it receives.
        DisposableServer netty = TcpServer.create().host("127.0.0.1").port(0)
                // Reads of up to 1 MiB where the socket holds that much (Netty's default stops growing at 64 KiB):
                // fewer read calls for large messages, as the C receiver's 256 KiB reads.
                .childOption(ChannelOption.RCVBUF_ALLOCATOR, new AdaptiveRecvByteBufAllocator(512, 64 << 10, 1 << 20))
                .handle((in, out) -> {
                    NettyServerSide side = new NettyServerSide(out.alloc());
                    return out.send(in.receive().handle(side::onChunk));
                })
                .bindNow(Duration.ofSeconds(20));
        System.out.println("READY " + l.address() + " " + netty.port());
        System.out.flush();
        CommandLoop.serve();
        netty.disposeNow(Duration.ofSeconds(5));
        l.dispose();
    }

    /**
     * The Reactor Netty server's per-connection receiver, Netty at its best for this job: it walks the
     * length-prefixed frames in place as the socket's buffers arrive (Reactor Netty releases each after
     * {@code onNext}), reads the 4-byte length and the 8-byte header of each, and skips the payload, so nothing is
     * copied or cumulated, as Rivulet's receiver and the C receiver copy nothing beyond the kernel's copy. It answers
     * LAST with an ACK and PING with a PONG; the answers a buffer calls for leave as one write.
     */
    static final class NettyServerSide {
        private static final int HEAD = 4 + 8;
        private final ByteBufAllocator alloc;
        private final SeqCounter counter = new SeqCounter();
        /** A frame head split between two socket buffers is collected here. */
        private final ByteBuf split = io.netty.buffer.Unpooled.buffer(HEAD);
        /** Payload bytes of the current frame not yet seen. */
        private long skip;

        NettyServerSide(ByteBufAllocator alloc) {
            this.alloc = alloc;
        }

        void onChunk(ByteBuf chunk, SynchronousSink<ByteBuf> sink) {
            ByteBuf replies = null;
            int at = chunk.readerIndex();
            int end = chunk.writerIndex();
            while (at < end) {
                if (skip > 0) {
                    int n = (int) Math.min(skip, end - at);
                    skip -= n;
                    at += n;
                    continue;
                }
                int length;
                long h;
                if (split.writerIndex() == 0 && end - at >= HEAD) {
                    length = chunk.getInt(at);
                    h = chunk.getLongLE(at + 4);
                    at += HEAD;
                } else {
                    int n = Math.min(HEAD - split.writerIndex(), end - at);
                    split.writeBytes(chunk, at, n);
                    at += n;
                    if (split.writerIndex() < HEAD) {
                        break;
                    }
                    length = split.getInt(0);
                    h = split.getLongLE(4);
                    split.clear();
                }
                skip = length - 8L;
                replies = onHeader(h, length, replies);
            }
            if (replies != null) {
                sink.next(replies);
            }
        }

        private ByteBuf onHeader(long h, int length, ByteBuf replies) {
            int type = type(h);
            if (type == DATA || type == LAST) {
                counter.onData(seq(h));
                if (type == LAST) {
                    replies = replies != null ? replies : alloc.directBuffer(4 + 32);
                    int at = replies.writerIndex();
                    replies.writeInt(32).writeZero(32);
                    counter.ack(MemorySegment.ofBuffer(replies.nioBuffer(at + 4, 32)));
                }
            } else if (type == PING) {
                replies = replies != null ? replies : alloc.directBuffer(4 + length);
                replies.writeInt(length).writeLongLE(header(PONG, seq(h))).writeZero(length - 8);
            }
            return replies;
        }
    }

    // ============================================================================================== client

    private static void client(Transport t, String address, int nettyPort) throws Exception {
        Endpoint ep = t.connect(address).block(TIMEOUT);
        ClientSide cs = new ClientSide(UringBenchNode::report);
        ep.receive().subscribe(cs);
        NettyClient netty = new NettyClient(nettyPort);
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
        netty.conn.disposeNow(Duration.ofSeconds(5));
        ep.dispose();
    }

    /** The Reactor Netty client: one connection, its inbound subscriber takes acks and drives ping-pong. */
    static final class NettyClient {
        final Connection conn;
        final String transport;
        volatile CompletableFuture<Ack> ack = new CompletableFuture<>();
        volatile NettyPingPong ping;

        NettyClient(int port) {
            conn = TcpClient.create().host("127.0.0.1").port(port)
                    .doOnConnected(c -> c.addHandlerLast(frameDecoder()))
                    .connectNow(Duration.ofSeconds(20));
            // Which channel Reactor Netty picked: EpollSocketChannel when the native transport loaded.
            transport = conn.channel().getClass().getSimpleName() + (Epoll.isAvailable() ? ""
                    : "(epoll-unavailable:" + Epoll.unavailabilityCause() + ")");
            conn.inbound().receive().subscribe(buf -> {
                long now = System.nanoTime();
                int r = buf.readerIndex();
                switch (type(buf.getLongLE(r))) {
                    case PONG -> ping.pong(now);
                    case ACK -> ack.complete(Ack.read(MemorySegment.ofBuffer(buf.nioBuffer(r, 32)), now));
                    default -> {
                    }
                }
            }, UringBenchNode::report);
        }
    }

    /** Streaming frames: pooled direct buffers of a length prefix, the header and unwritten payload. */
    /** Netty ping-pong on the event loop: each pong writes the next ping straight to the channel. */
    static final class NettyPingPong {
        private final Channel channel;
        private final int size;
        private final int warm;
        private final int total;
        final long[] rtt;
        final CompletableFuture<Void> done = new CompletableFuture<>();
        private int i;
        private long t0;

        NettyPingPong(Channel channel, int size, int warm, int count) {
            this.channel = channel;
            this.size = size;
            this.warm = warm;
            this.total = warm + count;
            this.rtt = new long[count];
        }

        void start() {
            channel.eventLoop().execute(() -> {
                t0 = System.nanoTime();
                ping();
            });
        }

        private void ping() {
            ByteBuf b = channel.alloc().directBuffer(4 + size);
            b.writeInt(size).writeLongLE(header(PING, i)).writeZero(size - 8);
            channel.writeAndFlush(b);
        }

        void pong(long now) {
            if (i >= warm) {
                rtt[i - warm] = now - t0;
            }
            if (++i < total) {
                t0 = System.nanoTime();
                ping();
            } else {
                done.complete(null);
            }
        }
    }

    record Client(Endpoint ep, ClientSide cs, NettyClient netty) {

        private static long warmOf(long count) {
            return Math.max(1, count / 10);
        }

        private Ack nettyPhase(NettyFrameGen g, long n) throws Exception {
            CompletableFuture<Ack> f = new CompletableFuture<>();
            netty.ack = f;
            g.reset(n);
            netty.conn.outbound().send(Flux.generate(() -> g, NettyFrameGen::next)).then().block(TIMEOUT);
            return f.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).check("server", n);
        }

        String stream(int size, long count) throws Exception {
            BufferGen g = new BufferGen(ep.memory(), size);
            cs.phase(ep, g, warmOf(count), TIMEOUT);
            long a0 = allocated();
            long t0 = System.nanoTime();
            Ack a = cs.phase(ep, g, count, TIMEOUT);
            return streamResult("rivulet", "io_uring", size, count, t0, a0, a);
        }

        String nettyStream(int size, long count) throws Exception {
            // length-prefixed frames of SIZE bytes, the payload after the header left as allocated
            NettyFrameGen g = new NettyFrameGen(netty.conn.channel().alloc(),
                    (alloc, header) -> alloc.directBuffer(4 + size).writeInt(size).writeLongLE(header)
                            .writerIndex(4 + size));
            nettyPhase(g, warmOf(count));
            long a0 = allocated();
            long t0 = System.nanoTime();
            Ack a = nettyPhase(g, count);
            return streamResult("netty", netty.transport, size, count, t0, a0, a);
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
            NettyPingPong p = new NettyPingPong(netty.conn.channel(), size, Math.max(1, count / 10), count);
            netty.ping = p;
            p.start();
            p.done.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            return ResultLine.pingpong("netty", "transport=" + netty.transport, size, p.rtt);
        }
    }

    static void report(Throwable t) {
        System.err.println("uring-bench node: " + t);
    }
}
