package dev.rivulet.samples.bench;

import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import reactor.core.publisher.SynchronousSink;

import static dev.rivulet.samples.bench.BenchWire.DATA;
import static dev.rivulet.samples.bench.BenchWire.LAST;
import static dev.rivulet.samples.bench.BenchWire.header;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/** The streaming producer: pooled registered buffers with a header, no per-message capture or boxing. */
public final class BufferGen {
    private final MemoryDomain memory;
    private final int size;
    private long remaining;
    private long seq;

    public BufferGen(MemoryDomain memory, int size) {
        this.memory = memory;
        this.size = size;
    }

    public BufferGen reset(long n) {
        remaining = n;
        seq = 0;
        return this;
    }

    public static BufferGen next(BufferGen g, SynchronousSink<Buffer> sink) {
        if (g.remaining == 0) {
            sink.complete();
            return g;
        }
        Buffer b = g.memory.allocate(g.size);
        b.capacitySegment().set(JAVA_LONG_UNALIGNED, 0, header(--g.remaining == 0 ? LAST : DATA, g.seq++));
        sink.next(b);
        return g;
    }
}
