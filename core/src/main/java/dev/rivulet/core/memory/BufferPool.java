package dev.rivulet.core.memory;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ResourceClosedException;
import org.jctools.queues.MpmcUnboundedXaddArrayQueue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Registered message buffers in power-of-two size classes from 64 B to 1 MiB, carved from slabs that are registered
 * once each (registration is the expensive part: a system call and page pinning). Free buffers wait in lock-free
 * queues so any thread can allocate and release; in steady state neither allocates on the Java heap.
 *
 * <p>Requests above the largest class get a buffer of their own, registered on allocation and deregistered on its
 * last release. Pool memory is registered for local use only: it is never granted to a peer.
 */
public final class BufferPool {

    static final int MIN_CLASS_SHIFT = 6;   // 64 B
    static final int MAX_CLASS_SHIFT = 20;  // 1 MiB
    private static final long TARGET_SLAB_BYTES = 1L << 20;
    private static final int MIN_BUFFERS_PER_SLAB = 4;

    private final MemoryDomain domain;
    private final Arena arena;
    private final Object slabLock = new Object();
    private final SizeClass[] classes = new SizeClass[MAX_CLASS_SHIFT - MIN_CLASS_SHIFT + 1];
    private final List<MemoryRegion> slabs = new ArrayList<>();
    private final AtomicLong outstanding = new AtomicLong();
    private final AtomicLong registeredBytes = new AtomicLong();
    private volatile boolean closed;

    BufferPool(MemoryDomain domain) {
        this.domain = domain;
        this.arena = Arena.ofShared();
        for (int i = 0; i < classes.length; i++) {
            classes[i] = new SizeClass(1 << (i + MIN_CLASS_SHIFT));
        }
    }

    /** A buffer with {@code length() == size} and at least that capacity, holding one reference. */
    public Buffer allocate(int size) {
        if (size < 0) {
            throw new InvalidRequestException("negative buffer size " + size);
        }
        if (closed) {
            throw new ResourceClosedException("memory domain is closed");
        }
        Buffer b;
        int shift = Math.max(MIN_CLASS_SHIFT, 32 - Integer.numberOfLeadingZeros(Math.max(size, 1) - 1));
        if (shift > MAX_CLASS_SHIFT) {
            b = allocateHuge(size);
        } else {
            SizeClass sc = classes[shift - MIN_CLASS_SHIFT];
            b = sc.free.poll();
            if (b == null) {
                b = sc.grow();
            }
        }
        b.reset(size);
        outstanding.incrementAndGet();
        LeakDetector.allocated(b);
        return b;
    }

    /** Buffers handed out and not yet released. */
    public long outstanding() {
        return outstanding.get();
    }

    /** Bytes of registered memory this pool holds (slabs and live huge buffers). */
    public long registeredBytes() {
        return registeredBytes.get();
    }

    void recycle(Buffer b) {
        outstanding.decrementAndGet();
        LeakDetector.released(b);
        int cap = b.capacity();
        if (cap > (1 << MAX_CLASS_SHIFT)) {
            // A huge buffer owns its registration and memory: give both back now (the arena closes once the
            // provider registration is really gone).
            registeredBytes.addAndGet(-cap);
            b.region().close();
            return;
        }
        if (closed) {
            return;
        }
        classes[Integer.numberOfTrailingZeros(cap) - MIN_CLASS_SHIFT].free.offer(b);
    }

    private Buffer allocateHuge(int size) {
        Arena own = Arena.ofShared();
        MemoryRegion r;
        try {
            r = domain.register(own.allocate(size, 4096), Access.LOCAL);
        } catch (RuntimeException e) {
            own.close();
            throw e;
        }
        r.onClose().subscribe(null, null, own::close);
        registeredBytes.addAndGet(size);
        return new Buffer(this, r, 0, size);
    }

    private MemorySegment arenaAllocate(long bytes) {
        // Page alignment keeps providers that pin whole pages from overlapping two slabs.
        return arena.allocate(bytes, 4096);
    }

    /**
     * Releases every slab, and the slabs' memory once the provider has let go of the last of them. Buffers still
     * held by users become invalid (touching their memory then throws, it never reads freed memory); callers close
     * pools last.
     */
    void close() {
        List<MemoryRegion> all;
        synchronized (slabLock) {
            if (closed) {
                return;
            }
            closed = true;
            all = new ArrayList<>(slabs);
            slabs.clear();
        }
        if (all.isEmpty()) {
            arena.close();
            return;
        }
        AtomicLong open = new AtomicLong(all.size());
        for (MemoryRegion r : all) {
            r.onClose().subscribe(null, null, () -> {
                if (open.decrementAndGet() == 0) {
                    arena.close();
                }
            });
            r.close();
        }
    }

    private final class SizeClass {
        final int size;
        // Enough pooled chunks that a whole slab's worth of free buffers never forces a fresh chunk: in steady
        // state offer/poll then allocate nothing.
        final MpmcUnboundedXaddArrayQueue<Buffer> free = new MpmcUnboundedXaddArrayQueue<>(1024, 64);

        SizeClass(int size) {
            this.size = size;
        }

        Buffer grow() {
            synchronized (slabLock) {
                if (closed) {
                    throw new ResourceClosedException("memory domain is closed");
                }
                Buffer b = free.poll(); // another thread may have grown the class meanwhile
                if (b != null) {
                    return b;
                }
                int count = (int) Math.max(MIN_BUFFERS_PER_SLAB, TARGET_SLAB_BYTES / size);
                long bytes = (long) count * size;
                MemoryRegion slab = domain.register(arenaAllocate(bytes), Access.LOCAL);
                slabs.add(slab);
                registeredBytes.addAndGet(bytes);
                for (int i = 1; i < count; i++) {
                    free.offer(new Buffer(BufferPool.this, slab, (long) i * size, size));
                }
                return new Buffer(BufferPool.this, slab, 0, size);
            }
        }
    }
}
