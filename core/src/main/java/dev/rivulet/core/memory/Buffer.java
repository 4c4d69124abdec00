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
import java.util.Objects;

/**
 * A reference-counted message buffer in registered memory: what {@code send} consumes and {@code receive} emits.
 *
 * <p>Ownership follows Netty's rules. A new buffer has one reference. {@code send(buffer)} takes that reference and
 * releases it when the provider is done with the memory (its completion), never earlier, even when the sending
 * {@code Mono} is cancelled.
 *
 * <p><b>Lent buffers.</b> A buffer emitted by {@code receive()} is <em>lent</em>: it is a view onto the memory the
 * message arrived in (a coalesced frame, a receive buffer), valid on the thread that called {@code onNext} until
 * {@code onNext} returns, and on no other thread at any time. A subscriber that keeps it (across {@code publishOn},
 * in a window or a list) calls {@link #retain()} during {@code onNext}: the same object then becomes an ordinary
 * owned buffer (backed by a pooled copy of the bytes, or by the receive buffer itself when the message filled one),
 * usable from any thread until the subscriber releases it. Without {@code retain()}, every accessor of the bytes
 * fails with {@link InvalidMemoryException}, the detector on or off:
 * <ul>
 *   <li>on any thread other than the one it was lent to, always (a buffer handed to {@code publishOn} without
 *       {@code retain()});</li>
 *   <li>on the lending thread after {@code onNext} returned, until the object is lent again: view objects are
 *       reused only after many later messages (in the order they were lent), so a reference kept after the stream
 *       ended, or read a few messages later, fails. A reference read on the lending thread exactly while the same
 *       object is lent again for a much later message is the one case not detected; with
 *       {@link LeakDetector.Level#PARANOID} view objects are never reused, and even that fails.</li>
 * </ul>
 * A {@link MemorySegment} obtained from {@link #segment()} or {@link #capacitySegment()} is not checked: it is valid
 * exactly as long as the buffer it came from. The typed accessors ({@link #get(ValueLayout.OfLong, long)} and its
 * siblings, {@link #copyTo}) read a lent buffer without creating a segment.
 *
 * <p>Pooled buffers go back to their pool on the last release, and the object itself is reused. Every accessor of the
 * bytes checks the reference count, so a buffer used after its release fails with {@link InvalidMemoryException}
 * instead of reading memory that now belongs to someone else; with {@link LeakDetector.Level#PARANOID} the pool also
 * never reuses the object, so a stale reference keeps failing after the memory has been handed out again.
 */
public final class Buffer {

    private static final VarHandle STATE;
    private static final long COUNT_MASK = 0xFFFF_FFFFL;
    private static final long ONE_GENERATION = 1L << 32;

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(Buffer.class, "state", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The pool this buffer goes back to, or null for a lent view. */
    private final @Nullable BufferPool pool;
    /** The slab queue this buffer goes back to, or null for a buffer with a registration of its own or a view. */
    private final FreeList.@Nullable Slab home;
    /*
     * Where the bytes sit: {@code capacity} bytes of {@code memory} from {@code base}. Fixed for a pooled buffer
     * (its own slice, base 0); a view points them at each message it is lent for, and at its backing once retained.
     */
    private MemoryRegion region;
    private long regionOffset;
    private MemorySegment memory;
    private long base;
    private int capacity;
    private int length;
    private @Nullable MemorySegment slice;
    /**
     * The allocation this object currently stands for (upper 32 bits, bumped each time the pool hands it out or a
     * view is lent again) and its reference count (lower 32 bits), changed together so a release can be tied to one
     * allocation.
     */
    @SuppressWarnings("unused") // accessed through STATE
    private volatile long state;
    /**
     * The thread a view is lent to, while it is lent and not retained; null for every other buffer. Written before
     * the reference count that makes it visible, so a reader that sees the count sees the thread.
     */
    private @Nullable Thread lentTo;
    /**
     * A view's source while it is lent (the buffer the message sits in), then its backing once retained (what its
     * last release gives back). Null for pooled buffers.
     */
    private @Nullable Buffer source;
    /** Whether this view was retained during its loan and is now an owned buffer (lent again only once reclaimable). */
    private boolean adopted;
    /**
     * Set by the last release of an adopted view once that release is done with the object (its backing released):
     * from then on only the lender touches it, and may lend it again. Volatile: the releasing thread is any thread.
     */
    private volatile boolean reclaimable;
    /**
     * The bytes that follow this buffer's in the message it is sent as (a frame's header here, its payload there), so
     * that a wire able to write two parts sends the payload without a copy; this buffer holds the body's reference and
     * gives it up with its own last release. Set only by Rivulet itself ({@code MemoryAccess.attachBody}).
     */
    private @Nullable Buffer body;
    @Nullable Object leakRecord;

    Buffer(BufferPool pool, FreeList.@Nullable Slab home, MemoryRegion region, long regionOffset, int capacity) {
        this.pool = pool;
        this.home = home;
        this.region = region;
        this.regionOffset = regionOffset;
        this.memory = region.segment().asSlice(regionOffset, capacity);
        this.capacity = capacity;
    }

    /** A view for {@link LendingRing}, not lent yet: every accessor fails until it is. */
    private Buffer(Buffer firstSource) {
        this.pool = null;
        this.home = null;
        this.region = firstSource.region;
        this.memory = firstSource.memory;
    }

    static Buffer newView(Buffer firstSource) {
        return new Buffer(firstSource);
    }

    /** The region this buffer's memory belongs to (for local descriptors and keys). */
    public MemoryRegion region() {
        return region;
    }

    /** Offset of the first byte inside {@link #region()}. */
    public long regionOffset() {
        return regionOffset;
    }

    /** Bytes available in this buffer (a lent buffer: its message length). */
    public int capacity() {
        return capacity;
    }

    /** Message length: the bytes a send transmits, or the bytes a receive delivered. */
    public int length() {
        return length;
    }

    /** Sets the message length (0..capacity). */
    public Buffer length(int length) {
        checkLive();
        if (length < 0 || length > capacity) {
            throw new InvalidRequestException("length " + length + " outside 0.." + capacity);
        }
        if (this.length != length) {
            this.length = length;
            this.slice = null;
        }
        return this;
    }

    /**
     * The message bytes {@code [0, length)}. The segment itself is not checked: it is valid only as long as this
     * buffer is (for a lent buffer, until {@code onNext} returns).
     */
    public MemorySegment segment() {
        checkLive();
        MemorySegment v = slice;
        if (v == null) {
            v = memory.asSlice(base, length);
            slice = v;
        }
        return v;
    }

    /** All {@link #capacity()} bytes, independent of the message length (valid as long as {@link #segment()}). */
    public MemorySegment capacitySegment() {
        checkLive();
        return base == 0 && memory.byteSize() == capacity ? memory : memory.asSlice(base, capacity);
    }

    /** Native address of the first byte. */
    public long address() {
        return memory.address() + base;
    }

    /** The byte at {@code offset} of the message ({@code [0, length)}). */
    public byte get(ValueLayout.OfByte layout, long offset) {
        return memory.get(layout, checked(offset, 1));
    }

    /** The {@code short} at {@code offset} of the message, in {@code layout}'s byte order and alignment. */
    public short get(ValueLayout.OfShort layout, long offset) {
        return memory.get(layout, checked(offset, 2));
    }

    /** The {@code int} at {@code offset} of the message, in {@code layout}'s byte order and alignment. */
    public int get(ValueLayout.OfInt layout, long offset) {
        return memory.get(layout, checked(offset, 4));
    }

    /** The {@code long} at {@code offset} of the message, in {@code layout}'s byte order and alignment. */
    public long get(ValueLayout.OfLong layout, long offset) {
        return memory.get(layout, checked(offset, 8));
    }

    /** Copies {@code count} message bytes from {@code offset} into {@code dst} at {@code dstOffset}. */
    public void copyTo(long offset, MemorySegment dst, long dstOffset, long count) {
        MemorySegment.copy(memory, checked(offset, count), dst, dstOffset, count);
    }

    /** Copies {@code count} message bytes from {@code offset} into {@code dst} at {@code dstIndex}. */
    public void copyTo(long offset, byte[] dst, int dstIndex, int count) {
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, checked(offset, count), dst, dstIndex, count);
    }

    /** Where {@code size} message bytes from {@code offset} sit in {@link #memory}, after checking access and bounds. */
    private long checked(long offset, long size) {
        checkLive();
        Objects.checkFromIndexSize(offset, size, length);
        return base + offset;
    }

    /** Copies {@code bytes} in and sets the length to match. */
    public Buffer write(byte[] bytes) {
        length(bytes.length);
        MemorySegment.copy(bytes, 0, memory, ValueLayout.JAVA_BYTE, base, bytes.length);
        return this;
    }

    /** Copies {@code src}'s remaining bytes in (without moving its position) and sets the length to match. */
    public Buffer write(ByteBuffer src) {
        int n = src.remaining();
        length(n);
        MemorySegment.copy(MemorySegment.ofBuffer(src), 0, memory, base, n);
        return this;
    }

    /** A copy of the message bytes. */
    public byte[] toArray() {
        checkLive();
        byte[] bytes = new byte[length];
        MemorySegment.copy(memory, ValueLayout.JAVA_BYTE, base, bytes, 0, length);
        return bytes;
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

    /**
     * Adds a reference. On a lent buffer, during {@code onNext} and on the thread it was lent to, this keeps the
     * message: the buffer becomes an owned one that outlives {@code onNext} (see the class comment).
     */
    public Buffer retain() {
        for (;;) {
            long s = (long) STATE.getVolatile(this);
            int c = (int) (s & COUNT_MASK);
            if (c <= 0) {
                throw new InvalidMemoryException("buffer was already released");
            }
            Thread t = lentTo;
            if (t != null) {
                requireLendingThread(t);
                adopt(s);
                return this;
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
            Thread t = lentTo;
            if (t != null) {
                // A borrower releasing what it did not retain: only its own thread changes a lent view's state, and
                // the lender notices when onNext returns.
                requireLendingThread(t);
                STATE.setRelease(this, s - 1);
                return true;
            }
            if (STATE.compareAndSet(this, s, s - 1)) {
                if (c == 1) {
                    freed();
                    return true;
                }
                return false;
            }
        }
    }

    private void freed() {
        Buffer b = body;
        if (b != null) {
            body = null;
            b.release();
        }
        if (pool != null) {
            pool.recycle(this);
        } else if (source != null) {
            source.release(); // a retained view lets go of its backing
            if (adopted) {
                reclaimable = true; // last: the lender may reuse the object only after this release read it
            }
        }
    }

    // ---- lent views (LendingRing, on the lending thread) ----

    /**
     * Lends this view for {@code length} bytes at {@code offset} of {@code from}'s memory to the calling thread: a
     * new generation with one reference. Plain stores, published by the count's release store.
     */
    void lend(Buffer from, long offset, int length) {
        this.source = from;
        this.region = from.region;
        this.regionOffset = from.regionOffset + offset;
        this.memory = from.memory;
        this.base = from.base + offset;
        this.capacity = length;
        this.length = length;
        this.slice = null;
        if (adopted) {
            // Only an adopted view can be reclaimable, and its last release is over (the ring lends it again only
            // then), so no other thread writes the flag now: clearing it here, not on every loan, spares each
            // message the full fence of a volatile store.
            this.adopted = false;
            this.reclaimable = false;
        }
        this.lentTo = Thread.currentThread();
        long s = (long) STATE.getOpaque(this);
        STATE.setRelease(this, (s & ~COUNT_MASK) + ONE_GENERATION + 1);
    }

    /**
     * {@code onNext} returned: the lender's reference goes. Returns false when the borrower had released the buffer
     * itself. A view still lent becomes unusable with one release store (no read-modify-write: no other thread can
     * change a lent view's state); a retained view drops the lender's reference as any owned buffer does.
     */
    boolean endLoan() {
        if (adopted) {
            release();
            return true;
        }
        long s = (long) STATE.getOpaque(this);
        if ((s & COUNT_MASK) == 0) {
            return false;
        }
        STATE.setRelease(this, s - 1);
        return true;
    }

    /** Whether this view was retained during its loan: it is owned now and must not be lent again while held. */
    boolean adopted() {
        return adopted;
    }

    /** Whether this adopted view's last reference is gone and its release finished: it may be lent again. */
    boolean reclaimable() {
        return reclaimable;
    }

    /**
     * {@code retain()} during the loan: the view becomes an owned buffer with the lender's reference and the
     * borrower's. A message that fills its source takes a reference on the source; a record of a coalesced frame is
     * copied into a pooled buffer of its own, since the frame goes back to its pool when its records are delivered.
     */
    private void adopt(long s) {
        Buffer from = Objects.requireNonNull(source);
        Buffer backing;
        if (base == from.base && length == from.length) {
            backing = from.retain();
        } else {
            backing = Objects.requireNonNull(from.pool).allocate(length);
            MemorySegment.copy(memory, base, backing.memory, backing.base, length);
        }
        source = backing;
        region = backing.region;
        regionOffset = backing.regionOffset;
        memory = backing.memory;
        base = backing.base;
        capacity = backing.capacity;
        slice = null;
        adopted = true;
        lentTo = null;
        STATE.setRelease(this, s + 1);
    }

    private static void requireLendingThread(Thread lender) {
        if (lender != Thread.currentThread()) {
            throw notLentToThisThread(lender);
        }
    }

    private static InvalidMemoryException notLentToThisThread(Thread lender) {
        return new InvalidMemoryException("a received buffer is lent to " + lender.getName() + " for onNext only "
                + "and released when onNext returns: retain() it during onNext to use it on another thread");
    }

    private void checkLive() {
        if (((long) STATE.getVolatile(this) & COUNT_MASK) == 0) {
            throw new InvalidMemoryException("buffer was released: its memory may already belong to another "
                    + "message (retain() a received buffer to keep it past onNext)");
        }
        Thread t = lentTo;
        if (t != null && t != Thread.currentThread()) {
            throw notLentToThisThread(t);
        }
    }

    /**
     * Called by the pool when it hands the buffer out: a new allocation with one reference. A release store: the
     * allocating thread owns the object now, and hands it to any other the way it hands over the bytes it writes
     * (a queue, a signal), which publishes this store with them; no fence is needed per allocation.
     */
    void reset(int length) {
        this.length = length;
        this.slice = null;
        long s = (long) STATE.getOpaque(this);
        STATE.setRelease(this, (((s >>> 32) + 1) << 32) | 1L);
    }

    /** See {@link #body}: {@code b} follows this buffer's bytes; this buffer takes over the caller's reference. */
    void attachBody(Buffer b) {
        if (body != null) {
            throw new IllegalStateException("a buffer carries one body");
        }
        body = b;
    }

    @Nullable Buffer body() {
        return body;
    }

    FreeList.@Nullable Slab home() {
        return home;
    }

    @Override
    public String toString() {
        return "Buffer[length=" + length + ", capacity=" + capacity() + ", refCnt=" + refCnt() + "]";
    }
}
