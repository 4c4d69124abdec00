package dev.rivulet.core.engine;

import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Buffer;

import java.util.ArrayDeque;

/**
 * What a {@link Wire} learned between two of the engine's polls (completions, failures, arrivals, a broken
 * connection), queued in order and handed to {@link WireEvents} at the next {@link Wire#poll}. Keeping the engine's
 * callbacks (which may post again or close the endpoint) out of a wire's completion path is what lets a wire finish
 * its own bookkeeping first. Entries are recycled: steady state allocates nothing. Progress thread only.
 */
public final class WireEventQueue {

    private static final int COMPLETED = 1;
    private static final int FAILED = 2;
    private static final int RECEIVED = 3;
    private static final int BROKEN = 4;

    private final ArrayDeque<Entry> queued = new ArrayDeque<>();
    private final ArrayDeque<Entry> free = new ArrayDeque<>();

    public void completed(Op op, long value) {
        Entry e = add(COMPLETED);
        e.op = op;
        e.value = value;
    }

    public void failed(Op op, TransportException error) {
        Entry e = add(FAILED);
        e.op = op;
        e.error = error;
    }

    /** A message (or a control word without payload when {@code payload} is null) arrived. */
    public void received(long controlWord, Buffer payload) {
        Entry e = add(RECEIVED);
        e.value = controlWord;
        e.buffer = payload;
    }

    public void broken(TransportException error) {
        add(BROKEN).error = error;
    }

    /**
     * Folds {@code creditWord}'s credits into the last queued event when that is a credit grant too, so that a peer
     * sending nothing but grants costs one event per poll; returns false (nothing changed) otherwise.
     */
    public boolean mergeCredits(long creditWord) {
        Entry last = queued.peekLast();
        if (last == null || last.type != RECEIVED || last.buffer != null
                || ControlWord.type(last.value) != ControlWord.CREDIT) {
            return false;
        }
        long sum = Math.min(ControlWord.MAX_CREDITS, ControlWord.credits(last.value) + ControlWord.credits(creditWord));
        last.value = ControlWord.encode(ControlWord.CREDIT, sum);
        return true;
    }

    public boolean isEmpty() {
        return queued.isEmpty();
    }

    /**
     * Hands every queued event to {@code sink}, oldest first; returns how many. The engine may close the endpoint
     * from inside a callback and poll again (nested): that inner call drains the rest, and this one finds it empty.
     */
    public int drainTo(WireEvents sink) {
        int n = 0;
        Entry e;
        while ((e = queued.pollFirst()) != null) {
            n++;
            int type = e.type;
            Op op = e.op;
            long value = e.value;
            Buffer buffer = e.buffer;
            TransportException error = e.error;
            e.clear();
            free.addLast(e);
            switch (type) {
                case COMPLETED -> sink.completed(op, value);
                case FAILED -> sink.failed(op, error);
                case RECEIVED -> sink.received(value, buffer);
                case BROKEN -> sink.broken(error);
                default -> throw new IllegalStateException("event " + type);
            }
        }
        return n;
    }

    /** Drops every queued event, releasing the buffers of arrivals nobody will take now. */
    public void discard() {
        Entry e;
        while ((e = queued.pollFirst()) != null) {
            if (e.buffer != null) {
                e.buffer.release();
            }
            e.clear();
            free.addLast(e);
        }
    }

    private Entry add(int type) {
        Entry e = free.pollFirst();
        if (e == null) {
            e = new Entry();
        }
        e.type = type;
        queued.addLast(e);
        return e;
    }

    private static final class Entry {
        int type;
        Op op;
        long value;
        Buffer buffer;
        TransportException error;

        void clear() {
            type = 0;
            op = null;
            value = 0;
            buffer = null;
            error = null;
        }
    }
}
