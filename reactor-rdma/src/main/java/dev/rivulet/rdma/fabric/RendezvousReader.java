package dev.rivulet.rdma.fabric;

import dev.rivulet.core.admission.ReceiveBudget;
import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.rdma.fabric.sys.FidEp;
import dev.rivulet.rdma.fabric.sys.Libfabric;
import dev.rivulet.rdma.wire.ConnectionFate;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.MemorySegment;

import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_EAGAIN;

/**
 * The receiving side of a rendezvous ({@link RendezvousRequest}): once a request reaches the head of the receive
 * order, the message is pulled with {@code fi_read} while later arrivals wait behind it, and the sender is answered
 * with a done word. A message the peer's receive budget covers is read in one go into a buffer of its size;
 * otherwise in pieces into a buffer that starts at {@link #FIRST_PIECE} and doubles as they arrive, so a peer that
 * announces a large message and then stalls the read holds little of this side's memory. A piece or a done word that
 * finds no free slot or a busy provider is retried on the next poll. Progress thread only.
 */
final class RendezvousReader {

    /** Posts a protocol word of the wire's own (the done word); returns the provider's code. */
    interface WordSender {
        long send(long word, byte kind);
    }

    private static final MemoryAccess MEMORY = Internals.memory();
    /** The first piece of a read beyond the peer's budget. */
    static final int FIRST_PIECE = 64 << 10;

    private final FabricLink link;
    private final MemoryDomain memory;
    private final ReceiveBudget.Connection budget;
    private final long maxMessageSize;
    private final ConnectionFate fate;
    private final WordSender words;

    /** The receive slot holding the request whose read is running, or -1. */
    private int requestSlot = -1;
    /** The buffer the read fills, how much of the message is in, and what the piece in flight asks for. */
    private @Nullable Buffer into;
    private long done;
    private long piece;
    private long address;
    private long key;
    private long length;
    /** The next piece waits for a free slot or the provider. */
    private boolean piecePending;
    /** A done word whose post must be retried, or 0. */
    private long pendingDone;

    RendezvousReader(FabricLink link, MemoryDomain memory, ReceiveBudget.Connection budget, long maxMessageSize,
                     ConnectionFate fate, WordSender words) {
        this.link = link;
        this.memory = memory;
        this.budget = budget;
        this.maxMessageSize = maxMessageSize;
        this.fate = fate;
        this.words = words;
    }

    /** Whether a read is running: later arrivals wait behind its request. */
    boolean reading() {
        return requestSlot >= 0;
    }

    /** Whether nothing is read nor waits to be: every arrival before the current head was handed up. */
    boolean idle() {
        return requestSlot < 0 && !piecePending;
    }

    /** The receive slot of the request being read (valid while {@link #reading()}). */
    int requestSlot() {
        return requestSlot;
    }

    /**
     * The request in {@code slot} (its payload in {@code request}) reached the head of the receive order: starts
     * pulling the message. A length beyond the maximum message size breaks the connection.
     */
    void start(WireEvents events, int slot, Buffer request) {
        MemorySegment m = request.capacitySegment();
        long len = RendezvousRequest.length(m);
        if (len < 0 || len > maxMessageSize) {
            fate.broken(events, new CreditProtocolException("rendezvous of " + len
                    + " bytes exceeds the maximum message size"));
            return;
        }
        boolean whole = len <= FIRST_PIECE || budget.commitAhead(len);
        into = memory.allocate((int) (whole ? len : FIRST_PIECE));
        requestSlot = slot;
        done = 0;
        address = RendezvousRequest.address(m);
        key = RendezvousRequest.key(m);
        length = len;
        postPiece(events);
    }

    /** Posts what the last poll could not: the next piece of the read, a done word. */
    void retry(WireEvents events) {
        if (pendingDone != 0 && words.send(pendingDone, ContextSlots.DONE_WORD) == 0) {
            pendingDone = 0;
        }
        if (piecePending) {
            postPiece(events);
        }
    }

    /**
     * A piece completed: the next one is posted, or, when the message is whole, the buffer holding it (its length
     * set) is returned and the read is over.
     */
    @Nullable Buffer pieceDone(WireEvents events) {
        Buffer buffer = into;
        done += piece;
        if (done < length) {
            if (done >= buffer.capacity()) {
                // The piece filled the buffer: the next, twice as large (or the message's size), takes over.
                Buffer bigger = memory.allocate((int) Math.min(length, 2 * done));
                MemorySegment.copy(buffer.capacitySegment(), 0, bigger.capacitySegment(), 0, done);
                buffer.release();
                into = bigger;
            }
            postPiece(events);
            return null;
        }
        requestSlot = -1;
        into = null;
        budget.frameDone();
        return buffer.length((int) length);
    }

    /** Answers the request with {@code token}: the sender may complete its send. */
    void answer(int token) {
        long word = RendezvousRequest.doneWord(token);
        if (words.send(word, ContextSlots.DONE_WORD) < 0) {
            // EAGAIN (no slot or provider resources) is retried on the next poll; a real failure means the peer is gone
            pendingDone = word;
        }
    }

    /** The piece in flight failed: its buffer was released with its slot; the connection breaks. */
    void pieceFailed() {
        into = null;
    }

    /** Whether {@code owner} (a slot's owner being released) is the read's buffer; if so, the read lets go of it. */
    boolean forget(Object owner) {
        if (owner != into) {
            return false;
        }
        into = null;
        return true;
    }

    /** The wire closed: a buffer held between two pieces (no slot owns it then) goes back. */
    void close() {
        if (into != null) {
            into.release();
            into = null;
        }
    }

    /** Reads as much of the rest of the message as the buffer has room for. */
    private void postPiece(WireEvents events) {
        piecePending = false;
        Buffer buffer = into;
        long chunk = Math.min(length - done, buffer.capacity() - done);
        int slot = link.acquire(ContextSlots.RNDV_READ, buffer, chunk);
        if (slot < 0) {
            piecePending = true;
            return;
        }
        MemorySegment target = done == 0 ? buffer.capacitySegment() : buffer.capacitySegment().asSlice(done);
        long rc = FidEp.read(link.ep, target, chunk, MEMORY.descriptor(buffer.region()), link.peer, address + done,
                key, link.slots.context(slot));
        if (rc != 0) {
            link.slots.release(slot);
            if (rc == -FI_EAGAIN) {
                piecePending = true;
            } else {
                fate.broken(events, new ConnectionLostException("rendezvous read failed", link.provider(), (int) -rc,
                        Libfabric.strerror((int) -rc), null));
            }
            return;
        }
        piece = chunk;
    }
}
