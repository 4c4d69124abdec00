package dev.rivulet.samples.webflux.storage;

import java.util.Map;
import java.util.TreeMap;

/**
 * First-fit allocation of byte ranges inside one registered region, with neighbouring free ranges merged on free.
 * Offsets are kept 64-byte aligned so every block starts on a cache line (and an 8-byte word, for atomics).
 */
final class ExtentAllocator {

    static final long ALIGN = 64;

    private final TreeMap<Long, Long> free = new TreeMap<>();
    private final long capacity;
    private long used;

    ExtentAllocator(long capacity) {
        this.capacity = capacity;
        free.put(0L, capacity);
    }

    /** The offset of {@code size} bytes (at least 1 is reserved), or -1 when no free range is large enough. */
    synchronized long allocate(long size) {
        long need = align(Math.max(1, size));
        for (Map.Entry<Long, Long> e : free.entrySet()) {
            // Read both before removing: TreeMap may reuse a removed entry's node for its successor, so the entry
            // would then answer the next free range's offset and length.
            long at = e.getKey();
            long length = e.getValue();
            if (length >= need) {
                free.remove(at);
                if (length > need) {
                    free.put(at + need, length - need);
                }
                used += need;
                return at;
            }
        }
        return -1;
    }

    /** Gives back what {@link #allocate} returned for {@code size}. */
    synchronized void free(long offset, long size) {
        long n = align(Math.max(1, size));
        used -= n;
        long start = offset;
        long length = n;
        Map.Entry<Long, Long> before = free.floorEntry(offset);
        if (before != null && before.getKey() + before.getValue() == offset) {
            start = before.getKey();
            length += before.getValue();
            free.remove(before.getKey());
        }
        Long after = free.get(offset + n);
        if (after != null) {
            free.remove(offset + n);
            length += after;
        }
        free.put(start, length);
    }

    synchronized long used() {
        return used;
    }

    long capacity() {
        return capacity;
    }

    private static long align(long n) {
        return (n + ALIGN - 1) & -ALIGN;
    }
}
