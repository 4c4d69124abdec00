package dev.rivulet.core.memory;

import dev.rivulet.core.error.InsufficientResourcesException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ResourceClosedException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.scheduler.Schedulers;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Registered message buffers in power-of-two size classes from 64 B to 1 MiB, carved from slabs that are registered
 * once each (registration is the expensive part: a system call, page pinning and a lock). Free buffers wait in
 * lock-free queues so any thread can allocate and release; in steady state neither allocates on the Java heap.
 *
 * <p>A non-blocking thread (a transport's polling thread, Reactor's parallel workers) never waits for memory. A size
 * class used from such a thread keeps headroom: when its free buffers run low a slab is registered on
 * {@link Schedulers#boundedElastic()} in the background; if the class still runs dry, a larger free buffer serves the
 * request, and only when there is none does the thread register a slab itself: one registration (behind one the
 * background has under way for that class, if any), not a wait for the background (counted in
 * {@link #inlineGrowths()}). A registration that fails (a provider out of memory or
 * locked pages) fails the allocation at once with a typed, retryable {@link InsufficientResourcesException}.
 * {@link #reserve(int, int)} registers ahead of time for applications that know their sizes and want no
 * registration on their polling threads at all.
 *
 * <p>Requests above the largest class get a buffer of their own, registered on allocation and deregistered on its
 * last release (on the calling thread, whichever it is). Pool memory is
 * registered for local use only: it is never granted to a peer.
 */
public final class BufferPool {

    private static final Logger log = LoggerFactory.getLogger(BufferPool.class);

    static final int MIN_CLASS_SHIFT = 6;   // 64 B
    static final int MAX_CLASS_SHIFT = 20;  // 1 MiB
    private static final long TARGET_SLAB_BYTES = 1L << 20;
    private static final int MIN_BUFFERS_PER_SLAB = 4;
    private static final VarHandle OWNER;

    static {
        try {
            OWNER = MethodHandles.lookup().findVarHandle(BufferPool.class, "owner", Owner.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final MemoryDomain domain;
    private final Arena arena;
    private final Object slabLock = new Object();
    private final SizeClass[] classes = new SizeClass[MAX_CLASS_SHIFT - MIN_CLASS_SHIFT + 1];
    private final List<MemoryRegion> slabs = new ArrayList<>();
    private final AtomicLong outstanding = new AtomicLong();
    private final AtomicLong registeredBytes = new AtomicLong();
    private final AtomicLong inlineGrowths = new AtomicLong();
    private volatile boolean closed;
    /**
     * The first non-blocking thread that used this pool (its transport's polling thread, as a rule) and that
     * thread's stacks: it finds them here, with no {@link ThreadLocal} lookup (two per pooled buffer otherwise, an
     * allocation and its release, some 10 ns together). Claimed once and never moved, so threads taking turns on a
     * pool do not fight over it: the others look theirs up.
     */
    private volatile @Nullable Owner owner;

    private record Owner(long threadId, @Nullable LocalStack[] stacks) {
    }

    BufferPool(MemoryDomain domain) {
        this.domain = domain;
        this.arena = Arena.ofShared();
        for (int i = 0; i < classes.length; i++) {
            classes[i] = new SizeClass(1 << (i + MIN_CLASS_SHIFT));
        }
    }

    /** A buffer with {@code length() == size} and at least that capacity, holding one reference. */
    public Buffer allocate(int size) {
        return Objects.requireNonNull(take(size, true));
    }

    /**
     * As {@link #allocate(int)}, but on a non-blocking thread returns {@code null} instead of registering when no
     * buffer is free (a background registration is under way then): for callers that can try again on their next
     * cycle.
     */
    public @Nullable Buffer tryAllocate(int size) {
        return take(size, false);
    }

    private @Nullable Buffer take(int size, boolean mayRegister) {
        if (size < 0) {
            throw new InvalidRequestException("negative buffer size " + size);
        }
        if (closed) {
            throw new ResourceClosedException("memory domain is closed");
        }
        int shift = shiftOf(size);
        boolean nonBlocking = Schedulers.isInNonBlockingThread();
        if (shift > MAX_CLASS_SHIFT) {
            Buffer b = !nonBlocking ? allocateHuge(size)
                    : mayRegister ? registerInline(size, () -> allocateHuge(size)) : null;
            return b == null ? null : handOut(b, size, null);
        }
        SizeClass sc = classes[shift - MIN_CLASS_SHIFT];
        if (!nonBlocking) {
            Buffer b = sc.free.poll();
            return handOut(b != null ? b : sc.grow(), size, null);
        }
        LocalStack local = stack(sc, shift - MIN_CLASS_SHIFT);
        Buffer b = local.pop();
        if (b != null) {
            return handOut(b, size, local); // the shared free count did not change: no headroom to check
        }
        b = sc.free.poll();
        if (b == null) {
            b = fromLargerClass(shift);
        }
        if (b == null) {
            sc.growIfLow();
            b = mayRegister ? growInline(sc) : null;
        } else {
            sc.keepHeadroom();
        }
        return b == null ? null : handOut(b, size, local);
    }

    /** {@code b} becomes a new allocation, counted by the taking thread's {@code local} stack if it has one. */
    private Buffer handOut(Buffer b, int size, @Nullable LocalStack local) {
        b.reset(size);
        count(local, 1);
        LeakDetector.allocated(b);
        return b;
    }

    /** Counts buffers handed out ({@code delta} 1) or back ({@code -1}) in the thread's stack, else in the pool. */
    private void count(@Nullable LocalStack local, int delta) {
        if (local != null) {
            local.count(delta);
        } else {
            outstanding.addAndGet(delta);
        }
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
     * Buffers handed out and not yet released: exact once the threads that allocate and release are at rest (or
     * have told the caller what they did), a moment's estimate while they run.
     */
    public long outstanding() {
        long n = outstanding.get();
        for (SizeClass sc : classes) {
            n += sc.countedLocally();
        }
        return n;
    }

    /** Bytes of registered memory this pool holds (slabs and live huge buffers). */
    public long registeredBytes() {
        return registeredBytes.get();
    }

    /** Times a non-blocking thread registered pool memory itself, the background growth being behind. */
    public long inlineGrowths() {
        return inlineGrowths.get();
    }

    void recycle(Buffer b) {
        LeakDetector.released(b);
        int cap = b.capacity();
        if (cap > (1 << MAX_CLASS_SHIFT)) {
            count(null, -1);
            // A huge buffer owns its registration and memory: give both back now (the arena closes once the
            // provider registration is really gone).
            registeredBytes.addAndGet(-cap);
            b.region().close();
            return;
        }
        int index = Integer.numberOfTrailingZeros(cap) - MIN_CLASS_SHIFT;
        SizeClass sc = classes[index];
        LocalStack local = Schedulers.isInNonBlockingThread() ? stack(sc, index) : null;
        count(local, -1);
        if (closed) {
            return;
        }
        if (LeakDetector.isParanoid()) {
            // Paranoid leak detection never reuses the object: a stale reference keeps failing once the memory has
            // been handed out again, instead of aliasing the new owner.
            sc.free.offer(new Buffer(this, b.home(), b.region(), b.regionOffset(), cap));
        } else if (local == null || !local.push(b)) {
            sc.free.offer(b);
        }
    }

    /** The calling non-blocking thread's stack of class {@code sc} (at {@code index}): see {@link #owner}. */
    private LocalStack stack(SizeClass sc, int index) {
        long me = Thread.currentThread().threadId();
        Owner o = owner;
        if (o == null && OWNER.compareAndSet(this, null, new Owner(me, new LocalStack[classes.length]))) {
            o = owner;
        }
        if (o == null || o.threadId() != me) {
            return sc.local.get();
        }
        LocalStack s = o.stacks()[index];
        if (s == null) {
            s = sc.local.get(); // made and registered as any thread's, then found here
            o.stacks()[index] = s;
        }
        return s;
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

    /**
     * The class ran dry on a non-blocking thread: registers a slab here rather than wait for the background one (a
     * registration is one system call; waiting would park a loop that serves other connections for as long as the
     * background takes, or for ever if it cannot go on).
     */
    private Buffer growInline(SizeClass sc) {
        return registerInline(sc.size, sc::grow);
    }

    /**
     * Runs {@code registration} on this non-blocking thread, counted; a registration that fails is a typed,
     * retryable error. One the background has under way for the same class finishes first (the slab lock), and its
     * buffer serves this request.
     */
    private Buffer registerInline(int size, java.util.function.Supplier<Buffer> registration) {
        inlineGrowths.incrementAndGet();
        try {
            return registration.get();
        } catch (InsufficientResourcesException | ResourceClosedException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new InsufficientResourcesException("registering pool memory for " + size + "-byte buffers "
                    + "failed: " + e.getMessage(), e);
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

    /**
     * One thread's few free buffers of one class (see {@code SizeClass.local}), and its count of the class's buffers
     * it handed out less those it released: kept here, written by that thread only, so that a polling thread
     * allocating and releasing a buffer per message makes no atomic update of a shared counter;
     * {@link #outstanding()} adds the counts up.
     */
    private static final class LocalStack {
        private static final VarHandle COUNTED;

        static {
            try {
                COUNTED = MethodHandles.lookup().findVarHandle(LocalStack.class, "counted", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private final @Nullable Buffer[] buffers;
        private int size;
        /** Read by any thread through {@link #counted()}; written by the owner only, with a release store. */
        @SuppressWarnings("unused") // through COUNTED
        private long counted;

        LocalStack(int capacity) {
            this.buffers = new Buffer[capacity];
        }

        void count(int delta) {
            COUNTED.setRelease(this, (long) COUNTED.getOpaque(this) + delta);
        }

        long counted() {
            return (long) COUNTED.getAcquire(this);
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
        /**
         * Every stack {@link #local} made, kept after its thread ends: its count stays part of the total (a thread
         * may have allocated buffers that others release, or the other way round).
         */
        private final List<LocalStack> stacks = new CopyOnWriteArrayList<>();

        SizeClass(int size) {
            this.size = size;
            this.perSlab = (int) Math.max(MIN_BUFFERS_PER_SLAB, TARGET_SLAB_BYTES / size);
            this.lowWater = Math.max(2, perSlab / 4);
            this.headroomMask = Integer.highestOneBit(Math.clamp(lowWater / 4, 1, 64)) - 1;
            int cached = Math.min(1024, (256 << 10) / size);
            this.local = ThreadLocal.withInitial(() -> {
                LocalStack s = new LocalStack(cached);
                stacks.add(s);
                return s;
            });
        }

        /** What the threads' stacks counted ({@link LocalStack#counted()}), added up. */
        long countedLocally() {
            long n = 0;
            for (LocalStack s : stacks) {
                n += s.counted();
            }
            return n;
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
            synchronized (slabLock) {
                if (closed) {
                    throw new ResourceClosedException("memory domain is closed");
                }
                long bytes = (long) perSlab * size;
                MemoryRegion slab = domain.register(arenaAllocate(bytes), Access.LOCAL);
                slabs.add(slab);
                registeredBytes.addAndGet(bytes);
                FreeList.Slab home = free.addSlab(perSlab);
                for (int i = 1; i < perSlab; i++) {
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
                        // The next allocation that finds the class dry registers on its own thread, and fails typed
                        // if that fails too.
                        log.debug("background registration of {}-byte buffers failed", size, t);
                    } finally {
                        growing.set(false);
                    }
                });
            } catch (RuntimeException rejected) {
                growing.set(false);
                log.debug("background registration of {}-byte buffers could not be scheduled", size, rejected);
            }
        }
    }
}
