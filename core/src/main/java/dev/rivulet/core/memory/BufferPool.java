package dev.rivulet.core.memory;

import dev.rivulet.core.error.InsufficientResourcesException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.loop.ProgressLoop;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Registered message buffers in power-of-two size classes from 64 B to 1 MiB, carved from slabs that are registered
 * once each (registration is the expensive part: a system call, page pinning and a lock). Free buffers wait in
 * lock-free queues so any thread can allocate and release; in steady state neither allocates on the Java heap.
 *
 * <p>Registration never runs on a non-blocking thread (a transport's polling thread, Reactor's parallel workers), and
 * an application's allocation there never waits. A size class used from such a thread keeps headroom: when its free
 * buffers run low a slab is registered on {@link Schedulers#boundedElastic()} in the background; if the class still
 * runs dry, a larger free buffer serves the request, and when there is none {@link #allocate} on a polling thread
 * fails at once with a retryable {@link InsufficientResourcesException} rather than park a loop that serves other
 * connections (on other non-blocking threads it waits for the background registration). A transport registers a
 * small first slab of the small classes when it opens ({@link #reserveStarters()}), and {@link #reserve(int, int)}
 * registers ahead of time for applications that know their sizes. Only a transport's own
 * receive paths, which must hold a message their peer was entitled to send, wait for the background registration
 * (counted in {@link #growthWaits()}), for at most {@value #GROWTH_WAIT_SECONDS} s.
 *
 * <p>Requests above the largest class get a buffer of their own, registered on allocation and deregistered on its
 * last release (registered in the background, too, when asked for on a non-blocking thread). Pool memory is
 * registered for local use only: it is never granted to a peer.
 */
public final class BufferPool {

    private static final Logger log = LoggerFactory.getLogger(BufferPool.class);

    static final int MIN_CLASS_SHIFT = 6;   // 64 B
    static final int MAX_CLASS_SHIFT = 20;  // 1 MiB
    private static final long TARGET_SLAB_BYTES = 1L << 20;
    private static final int MIN_BUFFERS_PER_SLAB = 4;
    private static final int STARTER_MAX_SIZE = 16 << 10;
    private static final int STARTER_SLAB_BYTES = 64 << 10;
    /** How long a transport's receive path on a non-blocking thread waits for a background registration. */
    private static final long GROWTH_WAIT_SECONDS = 10;
    private static final long GROWTH_WAIT_NANOS = GROWTH_WAIT_SECONDS * 1_000_000_000L;

    /** What {@link #take} does when a non-blocking thread finds no free buffer. */
    private enum OnEmpty {
        /** Fail at once with a retryable {@link InsufficientResourcesException}: an application's allocation. */
        FAIL,
        /** Return null: a caller that tries again on its next cycle. */
        NULL,
        /** Wait for the background registration: a transport's receive path. */
        WAIT
    }

    private final MemoryDomain domain;
    private final Arena arena;
    private final Object slabLock = new Object();
    private final SizeClass[] classes = new SizeClass[MAX_CLASS_SHIFT - MIN_CLASS_SHIFT + 1];
    private final List<MemoryRegion> slabs = new ArrayList<>();
    private final AtomicLong outstanding = new AtomicLong();
    private final AtomicLong registeredBytes = new AtomicLong();
    private final AtomicLong growthWaits = new AtomicLong();
    private volatile boolean closed;

    BufferPool(MemoryDomain domain) {
        this.domain = domain;
        this.arena = Arena.ofShared();
        for (int i = 0; i < classes.length; i++) {
            classes[i] = new SizeClass(1 << (i + MIN_CLASS_SHIFT));
        }
    }

    /**
     * A buffer with {@code length() == size} and at least that capacity, holding one reference. On a non-blocking
     * thread it never waits: with no free buffer of a fitting class (or above the largest class, whose buffers are
     * registered when allocated) it throws {@link InsufficientResourcesException}, retryable, at once.
     */
    public Buffer allocate(int size) {
        return handOut(take(size, OnEmpty.FAIL), size);
    }

    /**
     * As {@link #allocate(int)}, but on a non-blocking thread returns {@code null} instead of failing when no buffer
     * is free (a background registration is under way then): for callers that can try again on their next cycle.
     */
    public @Nullable Buffer tryAllocate(int size) {
        Buffer b = take(size, OnEmpty.NULL);
        return b == null ? null : handOut(b, size);
    }

    /**
     * As {@link #allocate(int)}, but a non-blocking thread with no free buffer waits for the background registration
     * (at most {@value #GROWTH_WAIT_SECONDS} s): for a transport's receive paths, which must hold what their peer
     * was entitled to send, and for the copy {@link Buffer#retain()} makes of a lent message.
     */
    Buffer allocateWaiting(int size) {
        return handOut(take(size, OnEmpty.WAIT), size);
    }

    private @Nullable Buffer take(int size, OnEmpty onEmpty) {
        if (size < 0) {
            throw new InvalidRequestException("negative buffer size " + size);
        }
        if (closed) {
            throw new ResourceClosedException("memory domain is closed");
        }
        int shift = shiftOf(size);
        boolean nonBlocking = Schedulers.isInNonBlockingThread();
        if (shift > MAX_CLASS_SHIFT) {
            return nonBlocking ? hugeOnNonBlocking(size, onEmpty) : allocateHuge(size);
        }
        SizeClass sc = classes[shift - MIN_CLASS_SHIFT];
        if (!nonBlocking) {
            Buffer b = sc.free.poll();
            return b != null ? b : sc.grow();
        }
        Buffer b = sc.local.get().pop();
        if (b != null) {
            return b; // the shared free count did not change: no headroom to check
        }
        b = sc.free.poll();
        if (b == null) {
            b = fromLargerClass(shift);
        }
        if (b == null) {
            sc.growIfLow();
            b = switch (onEmpty == OnEmpty.FAIL && !ProgressLoop.isPollingThread() ? OnEmpty.WAIT : onEmpty) {
                case WAIT -> awaitGrowth(sc);
                case NULL -> null;
                case FAIL -> throw new InsufficientResourcesException("no registered " + sc.size + "-byte buffer "
                        + "is free on this polling thread (more are being registered in the background); reserve "
                        + "them ahead with memory().buffers().reserve(size, count), or allocate off the polling "
                        + "thread");
            };
        } else {
            sc.keepHeadroom();
        }
        return b;
    }

    private Buffer handOut(Buffer b, int size) {
        b.reset(size);
        outstanding.incrementAndGet();
        LeakDetector.allocated(b);
        return b;
    }

    private static int shiftOf(int size) {
        return Math.max(MIN_CLASS_SHIFT, 32 - Integer.numberOfLeadingZeros(Math.max(size, 1) - 1));
    }

    /**
     * Registers slabs now, on the calling thread, until {@code count} buffers of {@code size} bytes are free: for
     * applications that know their message sizes and want no registration later. Sizes above the largest class are
     * not pooled and cannot be reserved.
     */
    public void reserve(int size, int count) {
        int shift = shiftOf(size);
        if (shift > MAX_CLASS_SHIFT) {
            throw new InvalidRequestException("buffers above " + (1 << MAX_CLASS_SHIFT) + " bytes are not pooled");
        }
        if (count < 0) {
            throw new InvalidRequestException("negative count " + count);
        }
        SizeClass sc = classes[shift - MIN_CLASS_SHIFT];
        while (sc.free.size() < count) {
            sc.addSlab();
        }
    }

    /**
     * Registers, on the calling thread, a small first slab ({@value #STARTER_SLAB_BYTES} bytes) of every class up to
     * {@value #STARTER_MAX_SIZE} bytes: memory reserved ahead, so that an application's first messages made on a
     * polling thread (a handler answering where its request was delivered) are served there without registering,
     * waiting or failing while the class grows in the background. A transport does this when it opens.
     */
    public void reserveStarters() {
        for (int shift = MIN_CLASS_SHIFT; 1 << shift <= STARTER_MAX_SIZE; shift++) {
            SizeClass sc = classes[shift - MIN_CLASS_SHIFT];
            if (sc.free.size() == 0) {
                sc.free.offer(sc.addSlab(Math.max(MIN_BUFFERS_PER_SLAB, STARTER_SLAB_BYTES >> shift)));
            }
        }
    }

    /** Buffers handed out and not yet released. */
    public long outstanding() {
        return outstanding.get();
    }

    /** Bytes of registered memory this pool holds (slabs and live huge buffers). */
    public long registeredBytes() {
        return registeredBytes.get();
    }

    /** Times a non-blocking thread had to wait for a background registration (see the class comment). */
    public long growthWaits() {
        return growthWaits.get();
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
        // Paranoid leak detection never reuses the object: a stale reference keeps failing once the memory has
        // been handed out again, instead of aliasing the new owner.
        SizeClass sc = classes[Integer.numberOfTrailingZeros(cap) - MIN_CLASS_SHIFT];
        if (LeakDetector.isParanoid()) {
            sc.free.offer(new Buffer(this, b.home(), b.region(), b.regionOffset(), cap));
        } else if (!Schedulers.isInNonBlockingThread() || !sc.local.get().push(b)) {
            sc.free.offer(b);
        }
    }

    /** A free buffer of a larger class (the length is set to the request; the extra capacity goes unused). */
    private @Nullable Buffer fromLargerClass(int shift) {
        for (int s = shift + 1; s <= MAX_CLASS_SHIFT; s++) {
            Buffer b = classes[s - MIN_CLASS_SHIFT].free.poll();
            if (b != null) {
                return b;
            }
        }
        return null;
    }

    private Buffer awaitGrowth(SizeClass sc) {
        growthWaits.incrementAndGet();
        long start = System.nanoTime();
        long deadline = start + GROWTH_WAIT_NANOS;
        Buffer b;
        while ((b = sc.free.poll()) == null) {
            if (closed) {
                throw new ResourceClosedException("memory domain is closed");
            }
            Throwable failure = sc.growthFailure;
            if (failure != null) {
                sc.growthFailure = null;
                throw failure instanceof RuntimeException re ? re
                        : new InsufficientResourcesException("registering pool memory failed: " + failure, failure);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new InsufficientResourcesException("no registered " + sc.size + "-byte buffer became free "
                        + "within " + GROWTH_WAIT_NANOS / 1_000_000_000L + " s");
            }
            sc.growIfLow();
            LockSupport.parkNanos(20_000);
        }
        logWait(sc.size, System.nanoTime() - start);
        return b;
    }

    private @Nullable Buffer hugeOnNonBlocking(int size, OnEmpty onEmpty) {
        return switch (onEmpty == OnEmpty.FAIL && !ProgressLoop.isPollingThread() ? OnEmpty.WAIT : onEmpty) {
            case WAIT -> awaitHuge(size);
            case NULL -> null;
            case FAIL -> throw new InsufficientResourcesException("a " + size + "-byte buffer is above the pool's "
                    + "largest class and registered when allocated, which a polling thread never waits for: "
                    + "allocate it off the polling thread");
        };
    }

    private Buffer awaitHuge(int size) {
        growthWaits.incrementAndGet();
        long start = System.nanoTime();
        Buffer b;
        try {
            b = Mono.fromCallable(() -> allocateHuge(size)).subscribeOn(Schedulers.boundedElastic())
                    .toFuture().join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException re ? re
                    : new InsufficientResourcesException("registering a " + size + "-byte buffer failed", e);
        }
        logWait(size, System.nanoTime() - start);
        return b;
    }

    private volatile long lastWaitLog;

    private void logWait(int size, long nanos) {
        long now = System.nanoTime();
        if (now - lastWaitLog > 10_000_000_000L) { // one line per 10 s however often it happens
            lastWaitLog = now;
            log.info("a non-blocking thread waited {} us for {}-byte registered buffers of {} (registered in the "
                            + "background); reserve them ahead with memory().buffers().reserve(size, count)",
                    nanos / 1_000, size, domain.name());
        }
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
        return new Buffer(this, null, r, 0, size);
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

    /** One thread's few free buffers of one class (see {@code SizeClass.local}); that thread only. */
    private static final class LocalStack {
        private final @Nullable Buffer[] buffers;
        private int size;

        LocalStack(int capacity) {
            this.buffers = new Buffer[capacity];
        }

        @Nullable Buffer pop() {
            if (size == 0) {
                return null;
            }
            Buffer b = buffers[--size];
            buffers[size] = null;
            return b;
        }

        boolean push(Buffer b) {
            if (size == buffers.length) {
                return false;
            }
            buffers[size++] = b;
            return true;
        }
    }

    private final class SizeClass {
        final int size;
        final int perSlab;
        /** Below this many free buffers, a class used from non-blocking threads grows in the background. */
        final int lowWater;
        final FreeList free = new FreeList();
        private final AtomicBoolean growing = new AtomicBoolean();
        /**
         * Counting the free buffers reads every slab's queue, so the headroom is checked on one allocation in
         * {@code headroomMask + 1} (at most 64, and a quarter of the low-water mark at most): still long before
         * the class runs out.
         */
        private final int headroomMask;
        /** Allocations since the class was created; a plain field: a lost increment only moves the next check. */
        private int allocations;
        /**
         * Free buffers kept by each non-blocking thread (a polling thread allocates the messages it sends and
         * releases them when they complete, and allocates a coalesced frame's messages one after another and gets
         * them back after delivery, all on itself): taken and given back without an atomic operation. At most
         * 256 KiB of each class per thread (so the classes above 256 KiB are not cached), and at most 1024 buffers;
         * what a thread keeps is not counted as free headroom, which only makes the class grow a little earlier.
         */
        final ThreadLocal<LocalStack> local;
        volatile @Nullable Throwable growthFailure;

        SizeClass(int size) {
            this.size = size;
            this.perSlab = (int) Math.max(MIN_BUFFERS_PER_SLAB, TARGET_SLAB_BYTES / size);
            this.lowWater = Math.max(2, perSlab / 4);
            this.headroomMask = Integer.highestOneBit(Math.clamp(lowWater / 4, 1, 64)) - 1;
            int cached = Math.min(1024, (256 << 10) / size);
            this.local = ThreadLocal.withInitial(() -> new LocalStack(cached));
        }

        /** Grows on the calling thread, which may block (not a non-blocking thread). */
        Buffer grow() {
            synchronized (slabLock) {
                Buffer b = free.poll(); // another thread may have grown the class meanwhile
                if (b != null) {
                    return b;
                }
                return addSlab();
            }
        }

        /** Registers one more slab; returns one of its buffers and frees the rest. */
        Buffer addSlab() {
            return addSlab(perSlab);
        }

        /** Registers a slab of {@code count} buffers; returns one of them and frees the rest. */
        Buffer addSlab(int count) {
            synchronized (slabLock) {
                if (closed) {
                    throw new ResourceClosedException("memory domain is closed");
                }
                long bytes = (long) count * size;
                MemoryRegion slab = domain.register(arenaAllocate(bytes), Access.LOCAL);
                slabs.add(slab);
                registeredBytes.addAndGet(bytes);
                FreeList.Slab home = free.addSlab(count);
                for (int i = 1; i < count; i++) {
                    free.offer(new Buffer(BufferPool.this, home, slab, (long) i * size, size));
                }
                return new Buffer(BufferPool.this, home, slab, 0, size);
            }
        }

        /** {@link #growIfLow()} on every {@code headroomMask + 1}-th allocation. */
        void keepHeadroom() {
            if ((allocations++ & headroomMask) == 0) {
                growIfLow();
            }
        }

        /** Starts a background registration when free buffers run low and none is under way. */
        void growIfLow() {
            if (free.size() >= lowWater || closed || !growing.compareAndSet(false, true)) {
                return;
            }
            try {
                Schedulers.boundedElastic().schedule(() -> {
                    try {
                        if (!closed && free.size() < lowWater) {
                            free.offer(addSlab());
                        }
                    } catch (Throwable t) {
                        growthFailure = t;
                    } finally {
                        growing.set(false);
                    }
                });
            } catch (RuntimeException rejected) {
                growing.set(false);
                growthFailure = rejected;
            }
        }
    }
}
