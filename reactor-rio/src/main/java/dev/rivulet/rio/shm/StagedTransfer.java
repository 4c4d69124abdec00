package dev.rivulet.rio.shm;

import dev.rivulet.core.engine.Op;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.Grant;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * The state of the staged transfers of one shared-memory connection: bytes copied chunk by chunk through a staging
 * pool, announced by a record and followed by {@code CHUNK}s. At most one runs each way at a time (see
 * {@link ShmWire}), so the one this side writes and an arriving large message reuse one object each; an arriving
 * staged put or get answer takes one of its own.
 */
final class StagedTransfer {

    /** A large message. */
    static final int MESSAGE = 1;
    /** A put's data, to the target. */
    static final int PUT = 2;
    /** A get's answer, to the initiator. */
    static final int GET_ANSWER = 3;

    private StagedTransfer() {
    }

    /** The staged transfer this side is writing. */
    static final class Outgoing {
        int purpose;
        /** The message or put it carries (null for a get answer). */
        Op op;
        /** Where the bytes come from: the message or the put's local memory (null for a get answer). */
        MemorySegment source;
        /** A message's second part ({@code Op.body()}), whose bytes follow {@link #sourceLength} of source's; or null. */
        @Nullable MemorySegment tail;
        /** How many of {@link #source}'s bytes are the message's (its segment may be longer: a buffer's capacity). */
        long sourceLength;
        long total;
        /** A get answer's grant, pinned until the last chunk is out, and the remote address it starts at. */
        Grant grant;
        long address;
        long done;
        /** The request a get answer answers. */
        long id;
        /** A chunk copied into the pool whose record found no room in the ring yet. */
        long pendingPosition;
        int pendingLength;

        Outgoing set(int purpose, Op op, MemorySegment source, long total) {
            this.purpose = purpose;
            this.op = op;
            this.source = source;
            this.tail = null;
            this.sourceLength = total;
            this.total = total;
            grant = null;
            address = 0;
            done = 0;
            id = 0;
            pendingPosition = 0;
            pendingLength = 0;
            return this;
        }

        /**
         * The message is the first {@code sourceLength} bytes of {@link #source}, then continues in {@code tail}
         * (null: it does not). Whole segments and lengths rather than slices: a slice is an object per message.
         */
        Outgoing tail(long sourceLength, @Nullable MemorySegment tail) {
            this.sourceLength = sourceLength;
            this.tail = tail;
            return this;
        }

        /** Copies the next {@code n} bytes from {@link #done} on into {@code to} at {@code index}, across both parts. */
        void copyOut(MemorySegment to, long index, int n) {
            long split = tail == null ? total : sourceLength;
            long at = done;
            int left = n;
            if (at < split) {
                int k = (int) Math.min(left, split - at);
                MemorySegment.copy(source, at, to, index, k);
                at += k;
                index += k;
                left -= k;
            }
            if (left > 0) {
                MemorySegment.copy(Objects.requireNonNull(tail), at - split, to, index, left);
            }
        }
    }

    /** The staged transfer this side is reading. */
    static final class Incoming {
        int purpose;
        long total;
        long done;
        /** A large message's control word. */
        long word;
        /** The put request it carries the data of. */
        long id;
        /** A large message's buffer (grown as its chunks arrive beyond the peer's budget). */
        Buffer buffer;
        /** The get whose answer this is. */
        Op op;
        /** A put's grant (null when refused: its data is read and dropped) and the remote address it starts at. */
        Grant grant;
        long address;
        /** Where a message's or a get answer's bytes go. */
        MemorySegment destination;
        /** The grant was revoked, or its memory went, while the put's data arrived: nothing more of it lands. */
        boolean refused;

        Incoming set(int purpose, long total) {
            this.purpose = purpose;
            this.total = total;
            done = 0;
            word = 0;
            id = 0;
            buffer = null;
            op = null;
            grant = null;
            address = 0;
            destination = null;
            refused = false;
            return this;
        }
    }
}
