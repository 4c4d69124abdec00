package dev.rivulet.core.memory;

import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.InvalidRequestException;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * A reference-counted message buffer in registered memory: what {@code send} consumes and {@code receive} emits.
 *
 * <p>Ownership follows Netty's rules. A new buffer has one reference. {@code send(buffer)} takes that reference and
 * releases it when the provider is done with the memory (its completion), never earlier, even when the sending
 * {@code Mono} is cancelled. A buffer emitted by {@code receive()} is lent for the duration of {@code onNext}:
 * Rivulet releases it when {@code onNext} returns, so a subscriber that keeps it (across {@code publishOn}, in a
 * window or a list) must {@link #retain()} it first and release it later.
 *
 * <p>Pooled buffers go back to their pool on the last release, and the object itself is reused. Every accessor of the
 * bytes checks the reference count, so a buffer used after its release fails with {@link InvalidMemoryException}
 * instead of reading memory that now belongs to someone else; with {@link LeakDetector.Level#PARANOID} the pool also
 * never reuses the object, so a stale reference keeps failing after the memory has been handed out again.
 */
public final class Buffer {

    private static final VarHandle STATE;
    private static final long COUNT_MASK = 0xFFFF_FFFFL;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Buffer.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final BufferPool pool;
    /** The slab queue this buffer goes back to, or null for a buffer with a registration of its own. */
    private final FreeList.@Nullable Slab home;
    private final MemoryRegion region;
    private final long regionOffset;
    private final MemorySegment memory;
    private int length;
    private @Nullable MemorySegment view;
    /**
     * The allocation this object currently stands for (upper 32 bits, bumped each time the pool hands it out) and its
     * reference count (lower 32 bits), changed together so a release can be tied to one allocation.
     */
    @SuppressWarnings("unused") // accessed through STATE
    private volatile long state;
    @Nullable Object leakRecord;

    Buffer(BufferPool pool, FreeList.@Nullable Slab home, MemoryRegion region, long regionOffset, int capacity) {
        this.pool = pool;
        this.home = home;
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
        checkLive();
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
        checkLive();
        MemorySegment v = view;
        if (v == null) {
            v = memory.asSlice(0, length);
            view = v;
        }
        return v;
    }

    /** All {@link #capacity()} bytes, independent of the message length. */
    public MemorySegment capacitySegment() {
        checkLive();
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

    /** Copies {@code src}'s remaining bytes in (without moving its position) and sets the length to match. */
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
        return toString(StandardCharsets.UTF_8);
    }

    /** The message bytes decoded with {@code charset}. */
    public String toString(Charset charset) {
        return new String(toArray(), charset);
    }

    public int refCnt() {
        return (int) ((long) STATE.getVolatile(this) & COUNT_MASK);
    }

    /** Adds a reference. */
    public Buffer retain() {
        for (;;) {
            long s = (long) STATE.getVolatile(this);
            int c = (int) (s & COUNT_MASK);
            if (c <= 0) {
                throw new InvalidMemoryException("buffer was already released");
            }
            if (STATE.compareAndSet(this, s, s + 1)) {
                return this;
            }
        }
    }

    /** Drops a reference; returns true when this was the last one and the buffer went back to its owner. */
    public boolean release() {
        for (;;) {
            long s = (long) STATE.getVolatile(this);
            int c = (int) (s & COUNT_MASK);
            if (c <= 0) {
                throw new InvalidMemoryException("buffer released more often than retained");
            }
            if (STATE.compareAndSet(this, s, s - 1)) {
                if (c == 1) {
                    pool.recycle(this);
                    return true;
                }
                return false;
            }
        }
    }

    /**
     * A token naming this buffer's current allocation, for {@link #releaseIfStill(long)}: a holder that lent the
     * buffer out can later drop its own reference without touching a later allocation of the same object.
     */
    long allocationToken() {
        return (long) STATE.getVolatile(this) >>> 32;
    }

    /**
     * Drops one reference if this object still stands for the allocation {@code token} names and still holds one;
     * false (and nothing changed) when the borrower released it already, or it was released and handed out again.
     */
    boolean releaseIfStill(long token) {
        for (;;) {
            long s = (long) STATE.getVolatile(this);
            int c = (int) (s & COUNT_MASK);
            if (s >>> 32 != token || c <= 0) {
                return false;
            }
            if (STATE.compareAndSet(this, s, s - 1)) {
                if (c == 1) {
                    pool.recycle(this);
                }
                return true;
            }
        }
    }

    private void checkLive() {
        if (((long) STATE.getVolatile(this) & COUNT_MASK) == 0) {
            throw new InvalidMemoryException("buffer was released: its memory may already belong to another "
                    + "message (retain() a received buffer to keep it past onNext)");
        }
    }

    /** Called by the pool when it hands the buffer out: a new allocation with one reference. */
    void reset(int length) {
        this.length = length;
        this.view = null;
        long s = (long) STATE.getVolatile(this);
        STATE.setVolatile(this, (((s >>> 32) + 1) << 32) | 1L);
    }

    BufferPool pool() {
        return pool;
    }

    FreeList.Slab home() {
        return home;
    }

    @Override
    public String toString() {
        return "Buffer[length=" + length + ", capacity=" + capacity() + ", refCnt=" + refCnt() + "]";
    }
}
