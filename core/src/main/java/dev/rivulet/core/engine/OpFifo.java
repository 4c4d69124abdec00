package dev.rivulet.core.engine;

import java.util.Arrays;

/**
 * The endpoint's queue of operations not yet posted: a growable ring that, unlike {@link java.util.ArrayDeque},
 * can be read by position, so that looking ahead at the queued sends (to coalesce them) creates no iterator per
 * look. Progress thread only.
 */
final class OpFifo {

    private Op[] ring = new Op[64];
    private int head;
    private int size;

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    void addLast(Op op) {
        if (size == ring.length) {
            grow();
        }
        ring[(head + size) & (ring.length - 1)] = op;
        size++;
    }

    /** The operation {@code index} places behind the head; {@code 0 <= index < size()}. */
    Op get(int index) {
        return ring[(head + index) & (ring.length - 1)];
    }

    Op peekFirst() {
        return size == 0 ? null : ring[head];
    }

    Op pollFirst() {
        if (size == 0) {
            return null;
        }
        Op op = ring[head];
        ring[head] = null;
        head = (head + 1) & (ring.length - 1);
        size--;
        return op;
    }

    private void grow() {
        Op[] bigger = new Op[ring.length << 1];
        int tail = ring.length - head;
        System.arraycopy(ring, head, bigger, 0, tail);
        System.arraycopy(ring, 0, bigger, tail, head);
        Arrays.fill(ring, null);
        ring = bigger;
        head = 0;
    }
}
