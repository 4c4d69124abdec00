package dev.rivulet.core.memory;

import dev.rivulet.core.internal.BufferLending;
import org.jspecify.annotations.Nullable;

/**
 * The view objects one endpoint's receive side lends, reused in the order they were lent over a ring of {@value #SIZE}: a
 * reference kept past its {@code onNext} meets the same object again only after that many later messages, and
 * meanwhile fails on its released state (see {@link Buffer}). Views are created on first use, so a receiver that
 * sees few messages holds few. A view the subscriber retained has become its buffer and leaves the ring; with
 * {@link LeakDetector.Level#PARANOID} every view does, so no object is ever lent twice. Lending thread only.
 */
final class LendingRing implements BufferLending {

    static final int SIZE = 1024;

    private final @Nullable Buffer[] views = new Buffer[SIZE];
    private int next;

    @Override
    public Buffer lend(Buffer source, long offset, int length) {
        int i = next;
        Buffer v = views[i];
        if (v == null) {
            v = Buffer.newView(source);
            views[i] = v;
        }
        next = (i + 1) & (SIZE - 1);
        v.lend(source, offset, length);
        return v;
    }

    @Override
    public boolean giveBack(Buffer view) {
        boolean stillLent = view.endLoan();
        if (view.adopted() || LeakDetector.isParanoid()) {
            views[(next - 1) & (SIZE - 1)] = null;
        }
        return stillLent;
    }
}
