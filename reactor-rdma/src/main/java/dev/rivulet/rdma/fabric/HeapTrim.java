package dev.rivulet.rdma.fabric;

import dev.rivulet.core.sys.Libc;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Gives the C heap's free memory back after endpoints close ({@link Libc#mallocTrim}). Providers allocate an
 * endpoint's buffer pools with {@code malloc}; glibc serves blocks of that size from its arenas once one such block
 * was freed (its mmap threshold follows the largest block freed, up to 32 MiB). A closed endpoint's provider
 * pools are freed into glibc's arenas, which keep them mapped and resident for later allocations: without a trim, a
 * burst of connections leaves its peak behind for the life of the process. Requests are coalesced: one trim runs on
 * a background thread a little after the first request, covering every close up to then, so a close never waits for
 * it and a close storm costs a trim per {@link #DELAY_MS}, not one per endpoint.
 */
final class HeapTrim {

    static final HeapTrim SHARED = new HeapTrim();

    private static final Logger log = LoggerFactory.getLogger(HeapTrim.class);
    private static final long DELAY_MS = 50;

    private final AtomicBoolean pending = new AtomicBoolean();

    private HeapTrim() {
    }

    /** Asks for a trim soon; returns at once. */
    void request() {
        if (!pending.compareAndSet(false, true)) {
            return; // the pending trim runs after this close, and covers it
        }
        try {
            Thread.ofPlatform().daemon().name("rivulet-fabric-heap-trim").start(this::run);
        } catch (Throwable t) {
            pending.set(false); // no thread (out of memory or threads): the next close asks again
        }
    }

    private void run() {
        try {
            Thread.sleep(DELAY_MS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        pending.set(false); // before the trim: a close during it asks for another
        try {
            Libc.mallocTrim();
        } catch (Throwable t) {
            log.debug("malloc_trim failed", t);
        }
    }
}
