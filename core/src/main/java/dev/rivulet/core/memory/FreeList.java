package dev.rivulet.core.memory;

import org.jctools.queues.atomic.MpmcAtomicArrayQueue;
import org.jspecify.annotations.Nullable;

/**
 * The free buffers of one size class, any thread offering and polling: one bounded queue per slab, each as large as
 * its slab has buffers, so a buffer always goes back to its own slab's queue and an offer never fails. JCTools'
 * atomic (Unsafe-free) MPMC queues: nothing here makes a user's JVM warn about {@code sun.misc.Unsafe}, and steady
 * state allocates nothing. A poll starts at the slab a buffer last went back to, where a free one most likely waits.
 */
final class FreeList {

    /** One slab's queue. */
    static final class Slab {
        final MpmcAtomicArrayQueue<Buffer> free;
        final int index;

        Slab(int buffers, int index) {
            this.free = new MpmcAtomicArrayQueue<>(Math.max(2, buffers));
            this.index = index;
        }
    }

    private volatile Slab[] slabs = new Slab[0];
    /** Where the last buffer went back: a plain field, a hint whose staleness costs only a longer search. */
    private int hint;

    /** A queue for a new slab of {@code buffers} buffers (callers serialise growth). */
    Slab addSlab(int buffers) {
        Slab[] old = slabs;
        Slab s = new Slab(buffers, old.length);
        Slab[] grown = java.util.Arrays.copyOf(old, old.length + 1);
        grown[old.length] = s;
        slabs = grown;
        return s;
    }

    void offer(Buffer b) {
        Slab home = b.home();
        if (!home.free.offer(b)) {
            throw new IllegalStateException("a slab's free queue overflowed: a buffer was released twice");
        }
        hint = home.index;
    }

    @Nullable Buffer poll() {
        Slab[] s = slabs;
        int n = s.length;
        if (n == 0) {
            return null;
        }
        int start = Math.min(hint, n - 1);
        for (int i = 0; i < n; i++) {
            int at = start + i;
            Buffer b = s[at < n ? at : at - n].free.poll();
            if (b != null) {
                return b;
            }
        }
        return null;
    }

    /** Free buffers now (a moment's count: others may be offering and polling). */
    int size() {
        int total = 0;
        for (Slab s : slabs) {
            total += s.free.size();
        }
        return total;
    }
}
