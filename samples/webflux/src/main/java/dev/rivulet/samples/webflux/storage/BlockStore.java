package dev.rivulet.samples.webflux.storage;

import dev.rivulet.core.Transport;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RegisteredSlice;

import java.lang.foreign.Arena;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The storage node's blocks: one region of registered memory, carved into extents by an {@link ExtentAllocator}, and
 * an index from block id to extent. The node's CPU never touches a block's bytes: the front writes and reads them with
 * one-sided operations into windows granted from this region.
 *
 * <p>An extent stays allocated while a reader holds a grant on it, even after its block was replaced or deleted, so a
 * GET in flight never reads bytes of a block written later into the same place.
 */
public final class BlockStore implements AutoCloseable {

    private final Arena arena = Arena.ofShared();
    private final MemoryRegion region;
    private final ExtentAllocator extents;
    private final long maxBlockSize;
    private final Map<String, Extent> blocks = new ConcurrentHashMap<>();

    /** A range of the region: its offset, the bytes reserved, the bytes written, and who still needs it. */
    static final class Extent {
        final long offset;
        final long capacity;
        long length;
        private int readers;
        private boolean retired;

        Extent(long offset, long capacity) {
            this.offset = offset;
            this.capacity = capacity;
        }
    }

    public BlockStore(Transport transport, long capacity, long maxBlockSize) {
        // The region may be granted for remote reads and writes; registering it exposes nothing by itself.
        this.region = transport.memory().register(arena.allocate(capacity, 4096), Access.REMOTE_READ,
                Access.REMOTE_WRITE);
        this.extents = new ExtentAllocator(capacity);
        this.maxBlockSize = maxBlockSize;
    }

    long maxBlockSize() {
        return maxBlockSize;
    }

    /** Room for a block of {@code size} bytes, not yet visible under any id; null when the store is full. */
    Extent reserve(long size) {
        long at = extents.allocate(size);
        return at < 0 ? null : new Extent(at, size);
    }

    /**
     * Makes {@code e} block {@code id} with {@code length} bytes; the block it replaces goes once unread. Returns
     * whether {@code id} is a new block (none replaced).
     */
    boolean commit(String id, Extent e, long length) {
        e.length = length;
        Extent old = blocks.put(id, e);
        if (old != null) {
            retire(old);
        }
        return old == null;
    }

    /** The block {@code id}, counted as read until {@link #doneReading}; null when there is none. */
    Extent startReading(String id) {
        for (;;) {
            Extent e = blocks.get(id);
            if (e == null) {
                return null;
            }
            synchronized (e) {
                if (!e.retired) {
                    e.readers++;
                    return e;
                }
            }
        }
    }

    void doneReading(Extent e) {
        boolean free;
        synchronized (e) {
            e.readers--;
            free = e.retired && e.readers == 0;
        }
        if (free) {
            extents.free(e.offset, e.capacity);
        }
    }

    /** Gives back room that never became a block (a write abandoned). */
    void abandon(Extent e) {
        extents.free(e.offset, e.capacity);
    }

    boolean delete(String id) {
        Extent e = blocks.remove(id);
        if (e != null) {
            retire(e);
        }
        return e != null;
    }

    private void retire(Extent e) {
        boolean free;
        synchronized (e) {
            e.retired = true;
            free = e.readers == 0;
        }
        if (free) {
            extents.free(e.offset, e.capacity);
        }
    }

    /** The window of {@code e}'s first {@code length} bytes, to grant. */
    RegisteredSlice window(Extent e, long length) {
        return region.slice(e.offset, Math.max(1, length));
    }

    public int blockCount() {
        return blocks.size();
    }

    public long usedBytes() {
        return extents.used();
    }

    public long capacity() {
        return extents.capacity();
    }

    @Override
    public void close() {
        region.close();
        region.onClose().subscribe(null, null, arena::close);
    }
}
