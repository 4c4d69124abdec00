package dev.rivulet.rdma.verbs;

/**
 * The bookkeeping of one queue pair's send queue under selective signalling, in Java only (no native state), so it
 * can be tested alone.
 *
 * <p>Only requests posted with {@code IBV_SEND_SIGNALED} produce a completion when they succeed. On a reliable
 * connection the send queue completes in posting order, so a signalled completion also says that every earlier
 * request has completed: they are retired with it ({@link #completeThrough}). Each request takes a slot of a ring
 * that mirrors the send queue; its slot index is its {@code wr_id}. A slot is free again only once the completion
 * that covers it was reaped, which is exactly when the provider has freed the work queue entry.
 *
 * <p>Requests are first <em>staged</em> ({@link #reserve}) and posted as one chain per poll ({@link #markPosted}),
 * so the wire rings one doorbell for a burst. Which staged requests ask for a completion ({@link #signalled(int)}):
 * every {@code interval}-th request since the last signalled one, and always the last request of a chain, so a
 * request never waits for a later one that may not come; and because the ring is never fuller than the send
 * queue, a queue full of unsignalled requests cannot happen either. Progress thread only.
 */
final class SendQueue {

    /** What a retired request was and who waits for it. */
    interface Retirement {
        void retire(int slot, byte kind, Object owner);
    }

    private final int capacity;
    private final int interval;
    private final Object[] owners;
    private final byte[] kinds;
    private final boolean[] signalled;
    private final long[] dueBy;
    /** Next slot to reserve, first staged slot, oldest outstanding slot: free-running, taken modulo capacity. */
    private long head;
    private long postedEnd;
    private long tail;
    /** Unsignalled requests posted since the last signalled one. */
    private int run;

    SendQueue(int capacity, int interval) {
        if (capacity < 1 || interval < 1) {
            throw new IllegalArgumentException("capacity " + capacity + ", interval " + interval);
        }
        this.capacity = capacity;
        this.interval = interval;
        this.owners = new Object[capacity];
        this.kinds = new byte[capacity];
        this.signalled = new boolean[capacity];
        this.dueBy = new long[capacity];
    }

    int capacity() {
        return capacity;
    }

    /** Slots neither staged nor waiting for a completion. */
    int free() {
        return capacity - (int) (head - tail);
    }

    /** Requests posted and not yet retired. */
    int outstanding() {
        return (int) (postedEnd - tail);
    }

    /** Requests reserved and not yet posted. */
    int staged() {
        return (int) (head - postedEnd);
    }

    /** Takes the next slot for a request of {@code kind} on behalf of {@code owner}; -1 when the queue is full. */
    int reserve(byte kind, Object owner) {
        if (head - tail == capacity) {
            return -1;
        }
        int slot = slot(head++);
        owners[slot] = owner;
        kinds[slot] = kind;
        signalled[slot] = false;
        return slot;
    }

    /** The slot of the {@code i}-th staged request (0: the first to post). */
    int stagedSlot(int i) {
        return slot(postedEnd + i);
    }

    /**
     * Whether the {@code i}-th staged request is to be posted with {@code IBV_SEND_SIGNALED}: it is the
     * {@code interval}-th since the last signalled one, or the last staged.
     */
    boolean signalled(int i) {
        return (run + i + 1) % interval == 0 || i == staged() - 1;
    }

    /**
     * The first {@code n} staged requests were posted (with the signalling {@link #signalled(int)} gave them), due by
     * {@code dueBy} on the caller's clock. The rest stay staged (a partial post): they are planned again next time,
     * with the count of unsignalled requests carried on.
     */
    void markPosted(int n, long dueBy) {
        if (n < 0 || n > staged()) {
            throw new IllegalArgumentException("posted " + n + " of " + staged() + " staged");
        }
        if (n == 0) {
            return;
        }
        boolean lastSignalled = false;
        for (int i = 0; i < n; i++) {
            int slot = stagedSlot(i);
            signalled[slot] = signalled(i);
            lastSignalled = signalled[slot];
            this.dueBy[slot] = dueBy;
        }
        run = lastSignalled ? 0 : (run + n) % interval;
        postedEnd += n;
    }

    /** Whether {@code slot} holds a posted, not yet retired, signalled request (a completion may name it). */
    boolean isSignalledOutstanding(int slot) {
        if (slot < 0 || slot >= capacity || outstanding() == 0) {
            return false;
        }
        long pos = position(slot);
        return pos >= tail && pos < postedEnd && signalled[slot];
    }

    /**
     * A signalled request completed successfully: it and every earlier outstanding request are retired, oldest
     * first. Returns how many, or -1 when {@code slot} is not a signalled outstanding request (nothing changes).
     */
    int completeThrough(int slot, Retirement r) {
        if (!isSignalledOutstanding(slot)) {
            return -1;
        }
        long end = position(slot) + 1;
        int n = 0;
        while (tail < end) {
            retireTail(r);
            n++;
        }
        return n;
    }

    /** Retires every outstanding request older than {@code slot} (which must be outstanding); returns how many. */
    int completeBefore(int slot, Retirement r) {
        if (slot < 0 || slot >= capacity || outstanding() == 0) {
            return 0;
        }
        long pos = position(slot);
        if (pos < tail || pos >= postedEnd) {
            return 0;
        }
        int n = 0;
        while (tail < pos) {
            retireTail(r);
            n++;
        }
        return n;
    }

    /** Retires the oldest outstanding request if it is {@code slot}; returns whether it was. */
    boolean completeOldestIf(int slot, Retirement r) {
        if (outstanding() == 0 || slot(tail) != slot) {
            return false;
        }
        retireTail(r);
        return true;
    }

    /** Retires everything, outstanding and staged, oldest first (the queue pair is gone); returns how many. */
    int drain(Retirement r) {
        int n = 0;
        while (tail < head) {
            retireTail(r);
            n++;
        }
        postedEnd = head;
        run = 0;
        return n;
    }

    /** When the oldest outstanding request was due, or {@link Long#MAX_VALUE} when none is outstanding. */
    long oldestDueBy() {
        return outstanding() == 0 ? Long.MAX_VALUE : dueBy[slot(tail)];
    }

    Object owner(int slot) {
        return owners[slot];
    }

    byte kind(int slot) {
        return kinds[slot];
    }

    private void retireTail(Retirement r) {
        int slot = slot(tail++);
        Object owner = owners[slot];
        byte kind = kinds[slot];
        owners[slot] = null;
        if (tail > postedEnd) {
            postedEnd = tail; // draining staged requests
        }
        r.retire(slot, kind, owner);
    }

    /** The free-running position of {@code slot} among the outstanding requests (tail ≤ position < tail + cap). */
    private long position(int slot) {
        long base = tail - slot(tail);
        long pos = base + slot;
        return pos < tail ? pos + capacity : pos;
    }

    private int slot(long position) {
        return (int) (position % capacity);
    }
}
