package dev.rivulet.core.interaction;

import org.jspecify.annotations.Nullable;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The open streams of a session, by id: an open-addressing table probed linearly from the id's slot. A lookup, done
 * for every arriving frame on the polling thread, reads the array without a lock and allocates nothing. Opening and
 * closing streams take the table's lock (a few per request, held for a handful of array writes). A closed stream's
 * slot becomes a tombstone, so a lookup probing past it is never misled; the table is rebuilt (larger when it holds
 * many streams) once tombstones and streams fill half of it, and published only when complete, so a lookup sees the
 * old table or the whole new one. Ids are the session's odd or even sequences, which spread over the slots.
 */
final class StreamTable {

    private static final int INITIAL = 64;
    /** Marks the slot of a stream that was removed: probing continues past it. */
    private static final Object GONE = new Object();

    /** Each slot: null (never used since the last rebuild), {@link #GONE}, or a {@link MuxStream}. */
    private volatile AtomicReferenceArray<@Nullable Object> slots = new AtomicReferenceArray<>(INITIAL);
    private int live;
    private int used;

    /** The open stream with {@code id}, or null. Any thread. */
    @Nullable MuxStream get(int id) {
        AtomicReferenceArray<@Nullable Object> s = slots;
        int mask = s.length() - 1;
        for (int i = id & mask; ; i = (i + 1) & mask) {
            Object o = s.get(i);
            if (o == null) {
                return null;
            }
            if (o instanceof MuxStream m && m.id() == id) {
                return m;
            }
        }
    }

    boolean contains(int id) {
        return get(id) != null;
    }

    /** Adds {@code stream}, whose id no open stream has. */
    synchronized void put(MuxStream stream) {
        if ((used + 1) * 2 > slots.length()) {
            rebuild();
        }
        AtomicReferenceArray<@Nullable Object> s = slots;
        int mask = s.length() - 1;
        for (int i = stream.id() & mask; ; i = (i + 1) & mask) {
            if (s.get(i) == null) {
                s.set(i, stream);
                live++;
                used++;
                return;
            }
        }
    }

    /** Removes {@code stream} if it is still the one open under its id. */
    synchronized void remove(MuxStream stream) {
        AtomicReferenceArray<@Nullable Object> s = slots;
        int mask = s.length() - 1;
        for (int i = stream.id() & mask; ; i = (i + 1) & mask) {
            Object o = s.get(i);
            if (o == null) {
                return;
            }
            if (o == stream) {
                s.set(i, GONE);
                live--;
                return;
            }
        }
    }

    /** Every open stream, and the table emptied (the session ended). */
    synchronized List<MuxStream> drain() {
        AtomicReferenceArray<@Nullable Object> s = slots;
        List<MuxStream> open = new ArrayList<>();
        for (int i = 0; i < s.length(); i++) {
            if (s.get(i) instanceof MuxStream m) {
                open.add(m);
            }
        }
        slots = new AtomicReferenceArray<>(INITIAL);
        live = 0;
        used = 0;
        return open;
    }

    /** A new table without tombstones, with room for twice the open streams at most half full (lock held). */
    private void rebuild() {
        AtomicReferenceArray<@Nullable Object> old = slots;
        int size = INITIAL;
        while (size < (live + 1) * 4) {
            size *= 2;
        }
        AtomicReferenceArray<@Nullable Object> fresh = new AtomicReferenceArray<>(size);
        int mask = size - 1;
        for (int i = 0; i < old.length(); i++) {
            if (old.get(i) instanceof MuxStream m) {
                int j = m.id() & mask;
                while (fresh.get(j) != null) {
                    j = (j + 1) & mask;
                }
                fresh.set(j, m);
            }
        }
        slots = fresh;
        used = live;
    }
}
