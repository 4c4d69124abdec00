package dev.rivulet.core.interaction;

import dev.rivulet.core.memory.Buffer;
import org.jspecify.annotations.Nullable;

/**
 * The received {@link Payload} objects one session lends, reused in the order they were lent over a ring of
 * {@value #SIZE}, as the endpoint reuses the buffers it lends from {@code receive()}: a payload kept past its call
 * without {@link Payload#retain()} meets its object again only after that many later payloads, and meanwhile fails
 * on its frame's released state. A payload that was retained, or that the session holds for a handler still
 * answering, is kept and leaves the ring; a held one's object may come back once that answer is over
 * ({@link #hold}). Polling thread only.
 */
final class LentPayloads {

    static final int SIZE = 1024;

    private final @Nullable Payload[] payloads = new Payload[SIZE];
    private int next;

    /**
     * The session holds {@code p}, the payload it lent last, for a handler still answering: it leaves the ring, and
     * {@code spare}, the object of an earlier held request that is over, takes its place (or, if null, a new object
     * does at the next lend there). Returns whether {@code p} left the ring: only then may it come back as a spare.
     */
    boolean hold(Payload p, @Nullable Payload spare) {
        p.keep();
        int last = (next - 1) & (SIZE - 1);
        if (payloads[last] != p) {
            return false;
        }
        payloads[last] = spare;
        return true;
    }

    /** A payload lent from {@code frame}: its data is {@code dataLength} bytes at {@code dataOffset}. */
    Payload lend(Buffer frame, Metadata metadata, int dataOffset, int dataLength) {
        int i = next;
        next = (i + 1) & (SIZE - 1);
        Payload p = payloads[i];
        if (p == null || p.isKept()) {
            p = Payload.received(frame, metadata, dataOffset, dataLength);
            payloads[i] = p;
            return p;
        }
        p.lendAgain(frame, metadata, dataOffset, dataLength);
        return p;
    }
}
