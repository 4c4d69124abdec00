package dev.rivulet.rdma.verbs;

/**
 * The receive queue's bookkeeping, in Java only: which buffer each posted receive holds, in posting order. On a
 * reliable connection receives complete in the order they were posted, so a completion must name the oldest posted
 * receive; anything else is a provider fault. A receive's slot index (with {@link #WR_ID_FLAG}) is its {@code wr_id}.
 * Progress thread only.
 *
 * @param <B> what a slot holds (a buffer)
 */
final class ReceiveRing<B> {

    /** Set in the {@code wr_id} of every receive, clear in every send request: one CQ serves both queues. */
    static final long WR_ID_FLAG = 1L << 63;

    private final Object[] held;
    private long head;
    private long tail;

    ReceiveRing(int capacity) {
        this.held = new Object[capacity];
    }

    int capacity() {
        return held.length;
    }

    int posted() {
        return (int) (head - tail);
    }

    int free() {
        return held.length - posted();
    }

    /** The slot the next posted receive takes (call {@link #add} once it is posted). */
    int nextSlot() {
        return (int) (head % held.length);
    }

    /** The slot of the {@code i}-th receive after the ones already posted. */
    int slotAfter(int i) {
        return (int) ((head + i) % held.length);
    }

    /** Records that the next receive was posted holding {@code b}. */
    void add(B b) {
        if (free() == 0) {
            throw new IllegalStateException("receive ring full");
        }
        held[(int) (head++ % held.length)] = b;
    }

    /** Whether {@code slot} is the oldest posted receive: the only one a completion may name. */
    boolean isOldest(int slot) {
        return posted() > 0 && (int) (tail % held.length) == slot;
    }

    /** Removes and returns the oldest posted receive's buffer. */
    @SuppressWarnings("unchecked")
    B takeOldest() {
        if (posted() == 0) {
            throw new IllegalStateException("no receive posted");
        }
        int slot = (int) (tail++ % held.length);
        B b = (B) held[slot];
        held[slot] = null;
        return b;
    }

    static long wrId(int slot) {
        return WR_ID_FLAG | slot;
    }

    static boolean isReceive(long wrId) {
        return (wrId & WR_ID_FLAG) != 0;
    }

    static int slotOf(long wrId) {
        return (int) (wrId & ~WR_ID_FLAG);
    }
}
