package dev.rivulet.rio.uring;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The channels of one ring by id, the id being what a completion's user_data names: a slot index and a generation,
 * so that a lookup per completion is an array read (no boxed key, nothing allocated) and an id whose channel is gone
 * never finds the channel that took its slot later. Id 0 is never handed out (it is the ring's own eventfd read).
 * Loop thread only.
 */
final class ChannelTable<C> {

    private static final int GENERATION_BITS = 12;
    private static final int GENERATION_MASK = (1 << GENERATION_BITS) - 1;
    /** Slots fit in the 31 bits above the generation left for a positive id. */
    private static final int MAX_SLOTS = (Integer.MAX_VALUE >>> GENERATION_BITS) - 1;

    private Object[] channels = new Object[16];
    private int[] generations = new int[16];
    private int[] free = new int[16];
    private int freeCount;
    private int used;
    private int size;

    /** Stores {@code c} (not null) and returns its id (positive). */
    int add(C c) {
        int slot;
        if (freeCount > 0) {
            slot = free[--freeCount];
        } else {
            if (used == MAX_SLOTS) {
                throw new IllegalStateException("too many channels on one ring");
            }
            if (used == channels.length) {
                int n = channels.length * 2;
                channels = Arrays.copyOf(channels, n);
                generations = Arrays.copyOf(generations, n);
                free = Arrays.copyOf(free, n);
            }
            slot = used++;
        }
        int generation = (generations[slot] + 1) & GENERATION_MASK;
        generations[slot] = generation;
        channels[slot] = c;
        size++;
        return (slot + 1) << GENERATION_BITS | generation;
    }

    /** The channel with this id, or null when it is gone. */
    @SuppressWarnings("unchecked")
    C get(int id) {
        int slot = (id >>> GENERATION_BITS) - 1;
        if (slot < 0 || slot >= used || generations[slot] != (id & GENERATION_MASK)) {
            return null;
        }
        return (C) channels[slot];
    }

    void remove(int id) {
        int slot = (id >>> GENERATION_BITS) - 1;
        if (get(id) == null) {
            return;
        }
        channels[slot] = null;
        free[freeCount++] = slot;
        size--;
    }

    int size() {
        return size;
    }

    /** Every channel, and the table emptied. */
    @SuppressWarnings("unchecked")
    List<C> removeAll() {
        List<C> all = new ArrayList<>(size);
        for (int i = 0; i < used; i++) {
            if (channels[i] != null) {
                all.add((C) channels[i]);
                channels[i] = null;
            }
        }
        used = 0;
        freeCount = 0;
        size = 0;
        return all;
    }
}
