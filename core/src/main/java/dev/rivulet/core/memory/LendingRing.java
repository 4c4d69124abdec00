package dev.rivulet.core.memory;

import dev.rivulet.core.internal.BufferLending;
import org.jspecify.annotations.Nullable;

/**
 * The view objects one endpoint's receive side lends, reused in the order they were lent over a ring of {@value #SIZE}: a
 * reference kept past its {@code onNext} meets the same object again only after that many later messages, and
 * meanwhile fails on its released state (see {@link Buffer}). Views are created on first use, so a receiver that
 * sees few messages holds few. A view the subscriber retained has become its buffer: when the ring comes round to it
 * while the subscriber still holds it, a new view takes its place; once the subscriber has released it, it is lent
 * again, so a subscriber that retains each message and lets it go within {@value #SIZE} messages makes no garbage.
 * With {@link LeakDetector.Level#PARANOID} every view leaves the ring, so no object is ever lent twice. Lending
 * thread only.
 */
final class LendingRing implements BufferLending {

    static final int SIZE = 1024;

    private final @Nullable Buffer[] views = new Buffer[SIZE];
    private int next;

    @Override
    public Buffer lend(Buffer source, long offset, int length) {
        int i = next;
        Buffer v = views[i];
        if (v == null || (v.adopted() && !v.reclaimable())) {
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
        if (LeakDetector.isParanoid()) {
            views[(next - 1) & (SIZE - 1)] = null;
        }
        return stillLent;
    }
}
