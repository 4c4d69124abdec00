package dev.rivulet.samples.bench.netty;

import dev.rivulet.samples.bench.SeqCounter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.SynchronousSink;

import java.lang.foreign.MemorySegment;

import static dev.rivulet.samples.bench.BenchWire.PING;
import static dev.rivulet.samples.bench.BenchWire.PONG;
import static dev.rivulet.samples.bench.BenchWire.header;
import static dev.rivulet.samples.bench.BenchWire.seq;
import static dev.rivulet.samples.bench.BenchWire.type;

/**
 * The Reactor Netty server's per-connection receiver, Netty at its best for this job: it walks the length-prefixed
 * frames in place as the socket's buffers arrive (Reactor Netty releases each after {@code onNext}), reads the 4-byte
 * length and the 8-byte header of each, and skips the payload, so nothing is copied or cumulated, as Rivulet's
 * receiver and the C receiver copy nothing beyond the kernel's copy. It answers LAST with an ACK and PING with a PONG;
 * the answers one buffer calls for leave as one write.
 */
final class NettyFrameWalker {
    private static final int HEAD = 4 + 8;
    private final ByteBufAllocator alloc;
    private final SeqCounter counter = new SeqCounter();
    /** A frame head split between two socket buffers is collected here. */
    private final ByteBuf split = Unpooled.buffer(HEAD);
    /** Payload bytes of the current frame not yet seen. */
    private long skip;

    NettyFrameWalker(ByteBufAllocator alloc) {
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

    private @Nullable ByteBuf onHeader(long h, int length, @Nullable ByteBuf replies) {
        if (counter.onMessage(h)) {
            replies = replies != null ? replies : alloc.directBuffer(4 + 32);
            int at = replies.writerIndex();
            replies.writeInt(32).writeZero(32);
            counter.ack(MemorySegment.ofBuffer(replies.nioBuffer(at + 4, 32)));
        } else if (type(h) == PING) {
            replies = replies != null ? replies : alloc.directBuffer(4 + length);
            replies.writeInt(length).writeLongLE(header(PONG, seq(h))).writeZero(length - 8);
        }
        return replies;
    }
}
