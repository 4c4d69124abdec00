package dev.rivulet.samples.bench;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import reactor.core.publisher.SynchronousSink;

import static dev.rivulet.samples.bench.BenchWire.DATA;
import static dev.rivulet.samples.bench.BenchWire.LAST;
import static dev.rivulet.samples.bench.BenchWire.header;

/**
 * The Reactor Netty comparison's producer, for {@code Flux.generate(() -> gen, NettyFrameGen::next)}: N frames with
 * a {@link BenchWire} header (the last one marked {@code LAST}), no per-message capture or boxing. How a frame is
 * laid out around its header is the caller's {@link Framing}.
 */
public final class NettyFrameGen {

    /** Allocates one frame carrying {@code header}. */
    @FunctionalInterface
    public interface Framing {
        ByteBuf frame(ByteBufAllocator alloc, long header);
    }

    private final ByteBufAllocator alloc;
    private final Framing framing;
    private long remaining;
    private long seq;

    public NettyFrameGen(ByteBufAllocator alloc, Framing framing) {
        this.alloc = alloc;
        this.framing = framing;
    }

    public NettyFrameGen reset(long n) {
        remaining = n;
        seq = 0;
        return this;
    }

    public static NettyFrameGen next(NettyFrameGen g, SynchronousSink<ByteBuf> sink) {
        if (g.remaining == 0) {
            sink.complete();
            return g;
        }
        sink.next(g.framing.frame(g.alloc, header(--g.remaining == 0 ? LAST : DATA, g.seq++)));
        return g;
    }
}
