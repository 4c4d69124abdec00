package dev.rivulet.samples.bench.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.SynchronousSink;

import static dev.rivulet.samples.bench.BenchWire.COPY;
import static dev.rivulet.samples.bench.BenchWire.LAST;
import static dev.rivulet.samples.bench.BenchWire.header;

/**
 * The Reactor Netty sender's messages, as Netty sends one message many times at its best: one direct buffer prepared
 * once (a 4-byte length, a {@link dev.rivulet.samples.bench.BenchWire#COPY} header, the payload filled), and per
 * message a retained duplicate of it ({@code retainedDuplicate()}: a view with indices of its own and a reference, no
 * copy), released by Netty once written. The phase ends with one LAST frame from the channel's allocator that carries
 * the number of copies before it. Rivulet's side does the same per message ({@code CopyGen}).
 *
 * <p>The prepared buffer comes from Netty's pooled allocator, whose duplicates are recycled objects; a duplicate of a
 * buffer from the adaptive allocator (Netty's default, which the channel keeps for everything else) is a new object
 * per message.
 */
final class NettyCopyFrames {
    private final ByteBufAllocator alloc;
    private final int size;
    private final ByteBuf copy;
    private long count;
    private long remaining;

    /** Frames of {@code size} message bytes (the length prefix comes on top). */
    NettyCopyFrames(ByteBufAllocator alloc, int size) {
        this.alloc = alloc;
        this.size = size;
        this.copy = PooledByteBufAllocator.DEFAULT.directBuffer(4 + size).writeInt(size)
                .writeLongLE(header(COPY, 0));
        while (copy.writerIndex() < 4 + size) {
            copy.writeByte(0x5a);
        }
    }

    /** {@code n} frames: {@code n - 1} copies, then LAST. */
    Flux<ByteBuf> frames(long n) {
        return Flux.generate(() -> reset(n), NettyCopyFrames::next);
    }

    private NettyCopyFrames reset(long n) {
        count = n;
        remaining = n;
        return this;
    }

    private static NettyCopyFrames next(NettyCopyFrames f, SynchronousSink<ByteBuf> sink) {
        if (f.remaining == 0) {
            sink.complete();
        } else if (--f.remaining > 0) {
            sink.next(f.copy.retainedDuplicate());
        } else {
            sink.next(f.alloc.directBuffer(4 + f.size).writeInt(f.size).writeLongLE(header(LAST, f.count - 1))
                    .writerIndex(4 + f.size));
        }
        return f;
    }

    /** Drops the prepared frame (the duplicates in flight keep it until Netty wrote them). */
    void release() {
        copy.release();
    }
}
