package dev.rivulet.gpu.spi;

import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.memory.MemoryRegion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The host regions a device memory type has pinned for asynchronous copies, one pin per region however many
 * transfers use it (pinning the same pages twice is an error for CUDA), each undone when its region closes.
 *
 * <p>A region is pinned whole: pool slabs hold the staging buffers of every endpoint and the buffers messages are
 * received into, so pinning slabs once makes every later chunk in them copy asynchronously, with no extra copy and
 * no per-chunk pinning. The unpin runs when the region reports closed, before the pool frees the memory (the pool
 * subscribes to that signal later, when it closes).
 */
final class RegionPins implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(RegionPins.class);
    private static final MemoryAccess MEMORY = Internals.memory();

    /** The native pin of a memory type. */
    interface Pinner {
        /** Page-locks {@code segment} for asynchronous copies (may block). */
        void pin(MemorySegment segment);

        /** Undoes {@link #pin}. */
        void unpin(MemorySegment segment);
    }

    private final Pinner pinner;
    private final Map<MemoryRegion, MemorySegment> pinned = new ConcurrentHashMap<>();
    private boolean closed;

    RegionPins(Pinner pinner) {
        this.pinner = pinner;
    }

    /** Pins {@code region} unless it already is. Blocks while the native pin runs. */
    synchronized void pin(MemoryRegion region) {
        if (closed) {
            throw new ResourceClosedException("device memory type is closed");
        }
        if (pinned.containsKey(region)) {
            return;
        }
        // Holding a pin on the region keeps its memory registered (and allocated) while the native pin runs.
        if (!MEMORY.tryPin(region)) {
            throw new InvalidMemoryException("region closed before it could be pinned for device copies");
        }
        try {
            MemorySegment segment = region.segment();
            pinner.pin(segment);
            pinned.put(region, segment);
            region.onClose().subscribe(null, null, () -> release(region));
        } finally {
            MEMORY.unpin(region);
        }
    }

    /** Never blocks, allocates nothing: a hash lookup by identity. */
    boolean isPinned(MemoryRegion region) {
        return pinned.containsKey(region);
    }

    int size() {
        return pinned.size();
    }

    private void release(MemoryRegion region) {
        MemorySegment segment = pinned.remove(region);
        if (segment != null) {
            try {
                pinner.unpin(segment);
            } catch (RuntimeException e) {
                log.warn("unpinning {} failed", region, e);
            }
        }
    }

    /** Unpins every region. */
    @Override
    public void close() {
        synchronized (this) {
            closed = true;
        }
        for (MemoryRegion r : List.copyOf(pinned.keySet())) {
            release(r);
        }
    }
}
