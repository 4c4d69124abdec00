package dev.rivulet.core.memory;

import dev.rivulet.core.error.InvalidRequestException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A reference-counted message buffer in registered memory: what {@code send} consumes and {@code receive} emits.
 *
 * <p>Ownership follows Netty's rules. A new buffer has one reference. {@code send(buffer)} takes that reference and
 * releases it when the provider is done with the memory (its completion), never earlier, even when the sending
 * {@code Mono} is cancelled. A buffer emitted by {@code receive()} belongs to the subscriber, who must
 * {@link #release()} it. Pooled buffers go back to their pool on the last release; the object itself is reused,
 * so it must not be touched after that.
 */
public final class Buffer {

    private static final VarHandle REF_CNT;

    static {
        try {
            REF_CNT = MethodHandles.lookup().findVarHandle(Buffer.class, "refCnt", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final BufferPool pool;
    private final MemoryRegion region;
    private final long regionOffset;
    private final MemorySegment memory;
    private int length;
    private MemorySegment view;
    @SuppressWarnings("unused") // accessed through REF_CNT
    private volatile int refCnt;
    Object leakRecord;

    Buffer(BufferPool pool, MemoryRegion region, long regionOffset, int capacity) {
        this.pool = pool;
        this.region = region;
        this.regionOffset = regionOffset;
        this.memory = region.segment().asSlice(regionOffset, capacity);
    }

    /** The region this buffer's memory belongs to (for local descriptors and keys). */
    public MemoryRegion region() {
        return region;
    }

    /** Offset of the first byte inside {@link #region()}. */
    public long regionOffset() {
        return regionOffset;
    }

    /** Bytes available in this buffer. */
    public int capacity() {
        return (int) memory.byteSize();
    }

    /** Message length: the bytes a send transmits, or the bytes a receive delivered. */
    public int length() {
        return length;
    }

    /** Sets the message length (0..capacity). */
    public Buffer length(int length) {
        if (length < 0 || length > memory.byteSize()) {
            throw new InvalidRequestException("length " + length + " outside 0.." + memory.byteSize());
        }
        if (this.length != length) {
            this.length = length;
            this.view = null;
        }
        return this;
    }

    /** The message bytes {@code [0, length)}. */
    public MemorySegment segment() {
        MemorySegment v = view;
        if (v == null) {
            v = memory.asSlice(0, length);
            view = v;
        }
        return v;
    }

    /** All {@link #capacity()} bytes, independent of the message length. */
    public MemorySegment capacitySegment() {
        return memory;
    }

    /** Native address of the first byte. */
    public long address() {
        return memory.address();
    }

    /** Copies {@code bytes} in and sets the length to match. */
    public Buffer write(byte[] bytes) {
        length(bytes.length);
        MemorySegment.copy(bytes, 0, memory, ValueLayout.JAVA_BYTE, 0, bytes.length);
        return this;
    }

    /** Copies {@code src}'s remaining bytes in and sets the length to match. */
    public Buffer write(ByteBuffer src) {
        int n = src.remaining();
        length(n);
        MemorySegment.copy(MemorySegment.ofBuffer(src), 0, memory, 0, n);
        return this;
    }

    /** A copy of the message bytes. */
    public byte[] toArray() {
        return segment().toArray(ValueLayout.JAVA_BYTE);
    }

    /** The message bytes decoded as UTF-8. */
    public String toUtf8() {
        return new String(toArray(), StandardCharsets.UTF_8);
    }

    public int refCnt() {
        return (int) REF_CNT.getVolatile(this);
    }

    /** Adds a reference. */
    public Buffer retain() {
        for (;;) {
            int c = (int) REF_CNT.getVolatile(this);
            if (c <= 0) {
                throw new IllegalStateException("buffer already released");
            }
            if (REF_CNT.compareAndSet(this, c, c + 1)) {
                return this;
            }
        }
    }

    /** Drops a reference; returns true when this was the last one and the buffer went back to its owner. */
    public boolean release() {
        int c = (int) REF_CNT.getAndAdd(this, -1);
        if (c == 1) {
            pool.recycle(this);
            return true;
        }
        if (c <= 0) {
            REF_CNT.getAndAdd(this, 1);
            throw new IllegalStateException("buffer released more often than retained");
        }
        return false;
    }

    /** Called by the pool when it hands the buffer out. */
    void reset(int length) {
        this.length = length;
        this.view = null;
        REF_CNT.setVolatile(this, 1);
    }

    BufferPool pool() {
        return pool;
    }

    @Override
    public String toString() {
        return "Buffer[length=" + length + ", capacity=" + capacity() + ", refCnt=" + refCnt() + "]";
    }
}
