package dev.rivulet.samples.webflux.front;

import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.RegisteredSlice;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferUtils;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a request body, as the {@code DataBuffer}s Netty hands over, into chunks of registered memory ready to be
 * put: each {@code DataBuffer} is copied into the current chunk and released at once, so a body is never held on the
 * heap, and what is in memory at any moment is the chunks in flight. Not thread-safe: a body's signals are serial.
 */
final class Chunker {

    /** {@code length} bytes of a registered buffer, for the block's bytes at {@code offset}. */
    record Chunk(Buffer buffer, long offset, int length) {
        RegisteredSlice slice() {
            return buffer.region().slice(buffer.regionOffset(), length);
        }

        void release() {
            buffer.release();
        }
    }

    private final MemoryDomain memory;
    private final int chunkSize;
    private Buffer current;
    private int fill;
    private long offset;
    private long total;

    Chunker(MemoryDomain memory, int chunkSize) {
        this.memory = memory;
        this.chunkSize = chunkSize;
    }

    /** Copies {@code data} in and releases it; returns the chunks it filled. */
    List<Chunk> add(DataBuffer data) {
        List<Chunk> full = new ArrayList<>(2);
        try (DataBuffer.ByteBufferIterator it = data.readableByteBuffers()) {
            while (it.hasNext()) {
                ByteBuffer bb = it.next();
                MemorySegment src = MemorySegment.ofBuffer(bb);
                long at = 0;
                while (at < src.byteSize()) {
                    if (current == null) {
                        current = memory.allocate(chunkSize);
                        fill = 0;
                    }
                    int n = (int) Math.min(chunkSize - fill, src.byteSize() - at);
                    MemorySegment.copy(src, at, current.capacitySegment(), fill, n);
                    fill += n;
                    at += n;
                    total += n;
                    if (fill == chunkSize) {
                        full.add(take());
                    }
                }
            }
        } finally {
            DataBufferUtils.release(data);
        }
        return full;
    }

    /** The last, partial chunk, if any. */
    List<Chunk> finish() {
        return current == null ? List.of() : List.of(take());
    }

    private Chunk take() {
        Chunk c = new Chunk(current.length(fill), offset, fill);
        offset += fill;
        current = null;
        fill = 0;
        return c;
    }

    long total() {
        return total;
    }

    /** Gives back a chunk still being filled (the body failed or was cancelled). */
    void abandon() {
        if (current != null) {
            current.release();
            current = null;
        }
    }
}
