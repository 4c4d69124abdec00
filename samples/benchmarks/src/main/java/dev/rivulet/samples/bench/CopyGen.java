package dev.rivulet.samples.bench;

import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import reactor.core.publisher.Flux;
import reactor.core.publisher.SynchronousSink;

import static dev.rivulet.samples.bench.BenchWire.COPY;
import static dev.rivulet.samples.bench.BenchWire.LAST;
import static dev.rivulet.samples.bench.BenchWire.header;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * The streaming producer that does what the Reactor Netty comparison's does per message ({@code NettyCopyFrames}:
 * a retained duplicate of one prepared buffer): one registered buffer, filled once with a {@link BenchWire#COPY}
 * header and its payload, sent again and again, each send taking a reference of its own ({@code retain()}, released
 * by the transport at the send's completion). The phase ends with one {@link BenchWire#LAST} message from the pool
 * that carries the number of copies before it. Neither this producer nor Netty's writes or allocates anything per
 * message.
 */
public final class CopyGen implements AutoCloseable {

    /** What the Rivulet side does per message, for the CLIs' method text. */
    public static final String METHOD = "Rivulet sends one prepared registered buffer again and again into "
            + "`Endpoint.send(Publisher<Buffer>)`, each send taking a reference of its own (`retain()`), and its "
            + "receiver reads each message's header in the buffer `receive()` lends it";

    private final MemoryDomain memory;
    private final int size;
    private final Buffer copy;
    private long count;
    private long remaining;

    /** The prepared message stays allocated until {@link #close}, as Netty's prepared frame does. */
    public CopyGen(MemoryDomain memory, int size) {
        this.memory = memory;
        this.size = size;
        this.copy = memory.allocate(size).length(size);
        copy.capacitySegment().fill((byte) 0x5a);
        copy.capacitySegment().set(JAVA_LONG_UNALIGNED, 0, header(COPY, 0));
    }

    /** {@code n} messages: {@code n - 1} copies, then LAST. */
    public Flux<Buffer> messages(long n) {
        return Flux.generate(() -> reset(n), CopyGen::next);
    }

    private CopyGen reset(long n) {
        count = n;
        remaining = n;
        return this;
    }

    private static CopyGen next(CopyGen g, SynchronousSink<Buffer> sink) {
        if (g.remaining == 0) {
            sink.complete();
        } else if (--g.remaining > 0) {
            sink.next(g.copy.retain());
        } else {
            Buffer last = g.memory.allocate(g.size).length(g.size);
            last.capacitySegment().set(JAVA_LONG_UNALIGNED, 0, header(LAST, g.count - 1));
            sink.next(last);
        }
        return g;
    }

    /** Drops the prepared message (the sends in flight keep it until they complete). */
    @Override
    public void close() {
        copy.release();
    }
}
