package dev.rivulet.rio.shm;

import dev.rivulet.core.engine.LivenessMonitor;
import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.WireEventQueue;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.remote.SoftwareTarget;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;

/**
 * What a {@link ShmWire} writes to its outgoing ring besides new messages and requests: the staged transfer under
 * way, the notices it owes (unmapped, done) and the answers to the peer's requests, in that order of precedence.
 *
 * <p>At most one staged transfer (a large message, a staged put, a staged get answer) runs at a time, and while it
 * runs nothing else that has an order is written; notices may pass. Answers owed to the peer wait in a queue bounded
 * by the requests the peer said it keeps in flight, so this side always drains its incoming ring, and two sides
 * flooding each other with requests cannot wedge. A waiting get answer holds a copy of its bytes, not a pin.
 */
final class ShmOutbox {

    private final ShmConnection conn;
    private final SoftwareTarget target;
    private final WireEventQueue events;
    private final LivenessMonitor liveness;
    private final ProgressLoop loop;
    private final ArrayDeque<long[]> control = new ArrayDeque<>();
    private final ArrayDeque<OwedAnswer> answers = new ArrayDeque<>();
    private final ArrayDeque<OwedAnswer> freeAnswers = new ArrayDeque<>();
    /** Reused: at most one staged transfer runs this way, so large messages allocate nothing. */
    private final StagedTransfer.Outgoing outgoing = new StagedTransfer.Outgoing();
    private StagedTransfer.Outgoing transfer;
    private boolean blocked;
    private boolean ringPeer;

    ShmOutbox(ShmConnection conn, SoftwareTarget target, WireEventQueue events, LivenessMonitor liveness,
              ProgressLoop loop) {
        this.conn = conn;
        this.target = target;
        this.events = events;
        this.liveness = liveness;
        this.loop = loop;
    }

    /**
     * Writes what this side owes before anything new and says whether a new record with an order may go now: true
     * when no notice, no answer and no staged transfer is left ahead of it.
     */
    boolean readyForNew() {
        return writeQueued() && transfer == null;
    }

    /** Whether a staged transfer is being written. */
    boolean transferring() {
        return transfer != null;
    }

    /** Whether this side waits for room in the peer's ring or pool (a poll is due once room frees). */
    boolean blocked() {
        return blocked;
    }

    /** Answers owed to the peer and not yet written. */
    int answersOwed() {
        return answers.size();
    }

    /** The ring or the pool had no room: a write the write timeout now watches. */
    int blockedOnRoom() {
        if (!blocked) {
            blocked = true;
            liveness.writeStarted(loop.coarseNanos());
        }
        return ShmWire.NO_RESOURCE;
    }

    /** Publishes what was claimed (a release store: a spinning peer sees it at once) and notes the peer to ring. */
    void published() {
        conn.out.publish();
        ringPeer = true;
        liveness.sent();
        if (blocked) {
            blocked = false;
            liveness.writeDone();
        }
    }

    /** The peer's doorbell is rung at the end of the poll (this side read from its ring, or wrote to it). */
    void ringPeerLater() {
        ringPeer = true;
    }

    void ringPeerIfNeeded() {
        if (ringPeer) {
            ringPeer = false;
            conn.peerBell.ring();
        }
    }

    /**
     * Writes what this side owes before anything new: notices first, then answers. True when nothing is left
     * queued, so a new record may go.
     */
    boolean writeQueued() {
        long[] c;
        while ((c = control.peekFirst()) != null) {
            if (conn.out.claim((int) c[0], c[1], 0) < 0) {
                blockedOnRoom();
                return false;
            }
            control.pollFirst();
            published();
        }
        while (transfer == null && !answers.isEmpty()) {
            // Taken off the queue before it is written: a staged answer whose transfer finishes inside writeAnswer
            // comes back here (finishTransfer), and must find the next answer at the head, not this one again.
            OwedAnswer a = answers.pollFirst();
            if (!writeAnswer(a)) {
                answers.addFirst(a);
                blockedOnRoom();
                return false;
            }
            recycle(a);
        }
        return answers.isEmpty();
    }

    /** A record without payload that may pass answers (a notice about a mapping or a copy). */
    void notice(int kind, long word) {
        if (control.isEmpty() && conn.out.claim(kind, word, 0) >= 0) {
            published();
        } else {
            control.addLast(new long[]{kind, word});
        }
    }

    // ================================================================================================ transfers

    /**
     * Starts copying a large message's bytes after its LARGE record: {@code sourceLength} bytes of {@code source}, then
     * {@code tail}'s (if any), {@code length} in all; its send completes with the last chunk.
     */
    void startMessage(Op op, MemorySegment source, long sourceLength, @Nullable MemorySegment tail, long length) {
        transfer = outgoing.set(StagedTransfer.MESSAGE, op, source, length).tail(sourceLength, tail);
        pumpTransfer();
    }

    /** Starts copying a staged put's data after its request (pumped once the request is published). */
    void startPut(Op op, MemorySegment source, long length) {
        transfer = outgoing.set(StagedTransfer.PUT, op, source, length);
    }

    /** Copies the current transfer on chunk by chunk while the pool and the ring have room. */
    void pumpTransfer() {
        StagedTransfer.Outgoing t = transfer;
        while (t != null) {
            if (t.pendingLength > 0) {
                if (!writeChunk(t.pendingPosition, t.pendingLength)) {
                    return;
                }
                t.done += t.pendingLength;
                t.pendingLength = 0;
            }
            if (t.done == t.total) {
                finishTransfer(t);
                t = transfer;
                continue;
            }
            if (t.purpose == StagedTransfer.GET_ANSWER && !t.grant.isOpen()) {
                // Revoked while its answer was under way: not one byte more leaves the window.
                if (conn.out.claim(Records.ABORT, t.id, 0) < 0) {
                    blockedOnRoom();
                    return;
                }
                published();
                target.release(t.grant);
                transfer = null;
                t = null;
                writeQueued();
                continue;
            }
            int n = (int) Math.min(t.total - t.done, conn.outPoolChunk);
            long position = conn.poolOut.reserve(n);
            if (position < 0) {
                blockedOnRoom();
                return;
            }
            copyChunk(t, conn.outPool.index(position), n);
            if (!writeChunk(position, n)) {
                t.pendingPosition = position;
                t.pendingLength = n;
                return;
            }
            t.done += n;
        }
    }

    private void copyChunk(StagedTransfer.Outgoing t, long index, int n) {
        if (t.purpose != StagedTransfer.GET_ANSWER) {
            t.copyOut(conn.outPool.data, index, n);
        } else if (!target.copyOut(t.grant, t.address + t.done, conn.outPool.data, index, n)) {
            throw new IllegalStateException("granted memory was freed under a get being answered");
        }
    }

    private boolean writeChunk(long position, int length) {
        long at = conn.out.claim(Records.CHUNK, position, 8);
        if (at < 0) {
            blockedOnRoom();
            return false;
        }
        conn.out.data().set(ValueLayout.JAVA_LONG, at, length);
        published();
        return true;
    }

    private void finishTransfer(StagedTransfer.Outgoing t) {
        transfer = null;
        switch (t.purpose) {
            case StagedTransfer.MESSAGE -> events.completed(t.op, 0);
            case StagedTransfer.GET_ANSWER -> target.release(t.grant);
            default -> {
                // a staged put completes with the target's answer
            }
        }
        writeQueued();
    }

    // ================================================================================================== answers

    /** Owes the peer a bare answer of {@code kind} to request {@code id}. */
    void answer(int kind, long id) {
        queueAnswer(newAnswer(kind, id));
    }

    OwedAnswer newAnswer(int kind, long id) {
        OwedAnswer a = freeAnswers.pollFirst();
        return (a != null ? a : new OwedAnswer()).set(kind, id);
    }

    private void recycle(OwedAnswer a) {
        a.clear();
        freeAnswers.addLast(a);
    }

    /** Writes the answer now if nothing is ahead of it, else queues it (a get's bytes are copied out first). */
    void queueAnswer(OwedAnswer a) {
        if (answers.isEmpty() && transfer == null && control.isEmpty() && writeAnswer(a)) {
            recycle(a);
            return;
        }
        if (a.kind == Records.DATA && a.data == null) {
            // Waiting answers hold a copy, not a pin: the bytes are those of the moment the get was served.
            a.data = new byte[(int) a.length];
            boolean copied = target.copyOut(a.grant, a.address, MemorySegment.ofArray(a.data), 0, a.length);
            target.release(a.grant);
            a.grant = null;
            if (!copied) {
                a.data = null;
                a.kind = Records.REFUSED;
            }
        }
        answers.addLast(a);
    }

    /** Writes one answer; false when the ring has no room for it. */
    private boolean writeAnswer(OwedAnswer a) {
        MemorySegment d = conn.out.data();
        long at;
        switch (a.kind) {
            case Records.OK, Records.REFUSED -> at = conn.out.claim(a.kind, a.id, 0);
            case Records.UNMAP -> at = conn.out.claim(a.kind, a.value, 0);
            case Records.VALUE, Records.GO -> {
                at = conn.out.claim(a.kind, a.id, 8);
                if (at >= 0) {
                    d.set(ValueLayout.JAVA_LONG, at, a.value);
                }
            }
            case Records.DATA -> {
                at = conn.out.claim(a.kind, a.id, (int) a.length);
                if (at >= 0) {
                    if (a.data != null) {
                        MemorySegment.copy(a.data, 0, d, ValueLayout.JAVA_BYTE, at, (int) a.length);
                    } else {
                        boolean copied = target.copyOut(a.grant, a.address, d, at, a.length);
                        target.release(a.grant);
                        if (!copied) {
                            throw new IllegalStateException("granted memory was freed under a get being answered");
                        }
                    }
                }
            }
            case Records.STAGED -> {
                at = conn.out.claim(a.kind, a.id, 8);
                if (at >= 0) {
                    d.set(ValueLayout.JAVA_LONG, at, a.length);
                    transfer = outgoing.set(StagedTransfer.GET_ANSWER, null, null, a.length);
                    transfer.grant = a.grant; // pinned until the last chunk is out
                    transfer.address = a.address;
                    transfer.id = a.id;
                }
            }
            case Records.MAPPED -> {
                at = conn.out.claim(a.kind, a.id, Records.MAPPED_BYTES);
                if (at >= 0) {
                    d.set(ValueLayout.JAVA_LONG, at, a.value);
                    d.set(ValueLayout.JAVA_LONG, at + 8, a.fileOffset);
                    d.set(ValueLayout.JAVA_LONG, at + 16, a.length);
                    d.set(ValueLayout.JAVA_LONG, at + 24, a.grant.remoteBase()); // what the peer's handle names
                    d.set(ValueLayout.JAVA_INT, at + 32, a.fd);
                    d.set(ValueLayout.JAVA_INT, at + 36, a.rights);
                }
            }
            default -> throw new IllegalStateException("answer " + a.kind);
        }
        if (at < 0) {
            return false;
        }
        published();
        if (transfer != null && a.kind == Records.STAGED) {
            pumpTransfer();
        }
        return true;
    }

    /**
     * The wire closed: a large message being written fails with {@code cause}, and a get answer's pin and those of
     * answers still owed go (the pins of MAPPED and GO answers are held by the request server, which releases them).
     */
    void close(TransportException cause) {
        StagedTransfer.Outgoing t = transfer;
        transfer = null;
        if (t != null) {
            if (t.purpose == StagedTransfer.MESSAGE) {
                events.failed(t.op, cause);
            } else if (t.purpose == StagedTransfer.GET_ANSWER) {
                target.release(t.grant);
            }
        }
        OwedAnswer a;
        while ((a = answers.pollFirst()) != null) {
            Grant g = a.grant;
            if (g != null && a.kind != Records.MAPPED && a.kind != Records.GO) {
                target.release(g);
            }
        }
    }

    /** A closed wire's close word, once the peer made room for it; false while there is none. */
    boolean writeCloseWord(long word) {
        if (conn.out.claim(Records.MESSAGE, word, 0) < 0) {
            return false;
        }
        conn.out.publish();
        ringPeer = true;
        return true;
    }
}
