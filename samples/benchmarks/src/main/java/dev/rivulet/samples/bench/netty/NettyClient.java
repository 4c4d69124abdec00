package dev.rivulet.samples.bench.netty;

import dev.rivulet.samples.bench.Ack;
import dev.rivulet.samples.bench.PingPong;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import org.jspecify.annotations.Nullable;
import reactor.netty.Connection;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static dev.rivulet.samples.bench.BenchWire.ACK;
import static dev.rivulet.samples.bench.BenchWire.PING;
import static dev.rivulet.samples.bench.BenchWire.PONG;
import static dev.rivulet.samples.bench.BenchWire.allocated;
import static dev.rivulet.samples.bench.BenchWire.header;
import static dev.rivulet.samples.bench.BenchWire.type;

/**
 * The Reactor Netty client of the benchmark nodes: one connection to a {@link NettyPeer#serve() server}, whose inbound
 * subscriber takes the acks of streaming phases and drives ping-pong.
 */
public final class NettyClient implements AutoCloseable {
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(20);
    /** Largest answer frame the client accepts (acks and pongs are small; pongs as large as the pings). */
    private static final int MAX_FRAME = 16 << 20;

    private final Connection conn;
    private final String channel;
    private volatile CompletableFuture<Ack> ack = new CompletableFuture<>();
    private volatile @Nullable PingPong ping;

    /** Connects to the server on {@code port}; {@code report} gets failures of the inbound side. */
    public NettyClient(int port, Consumer<Throwable> report) {
        // The answers are small frames: the decoder strips their 4-byte length.
        conn = NettyPeer.client(port)
                .doOnConnected(c -> c.addHandlerLast(new LengthFieldBasedFrameDecoder(MAX_FRAME, 0, 4, 0, 4)))
                .connectNow(CONNECT_TIMEOUT);
        channel = NettyPeer.channel(conn.channel().getClass());
        conn.inbound().receive().subscribe(this::onAnswer, report);
    }

    private void onAnswer(ByteBuf buf) {
        long now = System.nanoTime();
        int r = buf.readerIndex();
        switch (type(buf.getLongLE(r))) {
            case PONG -> {
                PingPong p = ping;
                if (p != null) {
                    p.pong(now);
                }
            }
            case ACK -> ack.complete(Ack.read(MemorySegment.ofBuffer(buf.nioBuffer(r, 32)), now));
            default -> {
            }
        }
    }

    /** The channel class Reactor Netty picked, for the results. */
    public String channel() {
        return channel;
    }

    /** A timed streaming phase: the server's ack, when the clock started, this JVM's allocation before and after. */
    public record Timed(Ack ack, long startNanos, long allocatedBefore, long allocatedAfter) {
        public double seconds() {
            return (ack.nanos() - startNanos) / 1e9;
        }
    }

    /**
     * Streams {@code count} frames of {@code size} message bytes after an untimed tenth as many, both from one
     * prepared frame ({@link NettyCopyFrames}), and returns the timed phase.
     */
    public Timed stream(int size, long count, Duration timeout) throws Exception {
        NettyCopyFrames frames = new NettyCopyFrames(conn.channel().alloc(), size);
        try {
            stream(frames, Math.max(1, count / 10), timeout);
            long a0 = allocated();
            long t0 = System.nanoTime();
            Ack a = stream(frames, count, timeout);
            return new Timed(a, t0, a0, allocated());
        } finally {
            frames.release();
        }
    }

    private Ack stream(NettyCopyFrames frames, long n, Duration timeout) throws Exception {
        CompletableFuture<Ack> f = new CompletableFuture<>();
        ack = f;
        conn.outbound().send(frames.frames(n)).then().block(timeout);
        return f.get(timeout.toSeconds(), TimeUnit.SECONDS).check("netty server", n);
    }

    /**
     * {@code count} timed round trips of {@code size}-byte pings after a tenth as many untimed ones, on the event loop:
     * each pong writes the next ping straight to the channel.
     */
    public long[] pingpong(int size, int count, Duration timeout) throws Exception {
        Channel channel = conn.channel();
        PingPong p = new PingPong((seq, pp) -> channel.writeAndFlush(channel.alloc().directBuffer(4 + size)
                .writeInt(size).writeLongLE(header(PING, seq)).writeZero(size - 8)), Math.max(1, count / 10), count);
        ping = p;
        channel.eventLoop().execute(p::start);
        p.done.get(timeout.toSeconds(), TimeUnit.SECONDS);
        return p.rtt;
    }

    @Override
    public void close() {
        conn.disposeNow(Duration.ofSeconds(5));
    }
}
