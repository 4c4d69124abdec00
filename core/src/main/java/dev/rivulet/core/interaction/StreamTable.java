package dev.rivulet.core.interaction;

import org.jspecify.annotations.Nullable;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The open streams of a session, by id: an open-addressing table probed linearly from the id's hashed slot. A lookup,
 * done for every arriving frame on the polling thread, reads the array without a lock and allocates nothing. Opening
 * and closing streams take the table's lock (a few per request, held for a handful of array writes).
 *
 * <p>A closed stream's slot is emptied by shifting the entries probed past it back towards their own slots (Knuth's
 * deletion for linear probing), so the table never fills with tombstones and never has to be rebuilt while the
 * number of open streams stays put: it grows, into a new array published only when complete, when they become more
 * than half of it. While a removal moves entries, a lookup may pass an entry on its way back; {@link #version} is
 * odd during the move and changes across it, and a lookup that found nothing looks again when it did (a hit is
 * always right: the entry it found is the one open under that id). Writes are ordered with release stores and a
 * store-store fence rather than full fences, as in a sequence lock: on x86 they cost no fence at all.
 */
final class StreamTable {

    private static final int INITIAL = 64;

    /** Each slot: null, or a {@link MuxStream}. */
    private volatile AtomicReferenceArray<@Nullable MuxStream> slots = new AtomicReferenceArray<>(INITIAL);
    private static final VarHandle VERSION;

    static {
        try {
            VERSION = MethodHandles.lookup().findVarHandle(StreamTable.class, "version", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Odd while a removal moves entries; bumped on both sides of the move (lock held). Through {@link #VERSION}. */
    @SuppressWarnings("unused")
    private int version;
    private int live;

    /** The open stream with {@code id}, or null. Any thread. */
    @Nullable MuxStream get(int id) {
        for (;;) {
            int v = (int) VERSION.getAcquire(this);
            MuxStream m = find(slots, id);
            VarHandle.loadLoadFence(); // the slots read before the version is read again
            if (m != null || ((v & 1) == 0 && v == (int) VERSION.getAcquire(this))) {
                return m;
            }
            Thread.onSpinWait(); // a removal was moving entries: the one looked for may have been in flight
        }
    }

    boolean contains(int id) {
        return get(id) != null;
    }

    private static @Nullable MuxStream find(AtomicReferenceArray<@Nullable MuxStream> s, int id) {
        int mask = s.length() - 1;
        for (int i = home(id, mask); ; i = (i + 1) & mask) {
            MuxStream m = s.getAcquire(i);
            if (m == null || m.id() == id) {
                return m;
            }
        }
    }

    /**
     * The slot a stream's probe starts from. Ids of one side go up by two, and both sides' ids share the table, so
     * they are mixed (Fibonacci hashing) rather than masked, which would leave every other slot a home to none.
     */
    private static int home(int id, int mask) {
        int h = id * 0x9E37_79B9;
        return (h ^ (h >>> 16)) & mask;
    }

    /** Adds {@code stream}, whose id no open stream has. */
    synchronized void put(MuxStream stream) {
        if ((live + 1) * 2 > slots.length()) {
            grow();
        }
        insert(slots, stream);
        live++;
    }

    private static void insert(AtomicReferenceArray<@Nullable MuxStream> s, MuxStream stream) {
        int mask = s.length() - 1;
        int i = home(stream.id(), mask);
        while (s.getPlain(i) != null) {
            i = (i + 1) & mask;
        }
        s.setRelease(i, stream); // the stream's fields before the stream
    }

    /** Removes {@code stream} if it is still the one open under its id. */
    synchronized void remove(MuxStream stream) {
        AtomicReferenceArray<@Nullable MuxStream> s = slots;
        int mask = s.length() - 1;
        int hole = home(stream.id(), mask);
        for (MuxStream m; (m = s.getPlain(hole)) != stream; hole = (hole + 1) & mask) {
            if (m == null) {
                return;
            }
        }
        VERSION.setOpaque(this, (int) VERSION.getOpaque(this) + 1);
        VarHandle.storeStoreFence(); // the odd version before any entry moves
        // Every entry after the hole up to the next empty slot was probed past it: move back each one whose own slot
        // does not lie between the hole and where it sits, so that its probe still reaches it.
        for (int j = (hole + 1) & mask; ; j = (j + 1) & mask) {
            MuxStream m = s.getPlain(j);
            if (m == null) {
                break;
            }
            int h = home(m.id(), mask);
            boolean reachable = hole <= j ? hole < h && h <= j : hole < h || h <= j;
            if (!reachable) {
                s.setRelease(hole, m);
                hole = j;
            }
        }
        s.setRelease(hole, null);
        live--;
        VERSION.setRelease(this, (int) VERSION.getOpaque(this) + 1); // after every move
    }

    /** Every open stream, and the table emptied (the session ended). */
    synchronized List<MuxStream> drain() {
        AtomicReferenceArray<@Nullable MuxStream> s = slots;
        List<MuxStream> open = new ArrayList<>();
        for (int i = 0; i < s.length(); i++) {
            MuxStream m = s.getPlain(i);
            if (m != null) {
                open.add(m);
            }
        }
        slots = new AtomicReferenceArray<>(INITIAL);
        live = 0;
        return open;
    }

    /** A table twice as large, with the same streams (lock held). */
    private void grow() {
        AtomicReferenceArray<@Nullable MuxStream> old = slots;
        AtomicReferenceArray<@Nullable MuxStream> fresh = new AtomicReferenceArray<>(old.length() * 2);
        for (int i = 0; i < old.length(); i++) {
            MuxStream m = old.getPlain(i);
            if (m != null) {
                insert(fresh, m);
            }
        }
        slots = fresh;
    }
}
