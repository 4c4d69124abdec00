package dev.rivulet.rio.shm;

import dev.rivulet.core.admission.ReceiveBudget;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.credit.CreditGate;
import dev.rivulet.core.engine.WireEventQueue;
import dev.rivulet.core.engine.wire.WireState;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.remote.SoftwareTarget;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * What arrives through a {@link ShmWire}'s incoming ring as data: messages, large messages and the chunks of every
 * staged transfer (a large message, the data of a staged put this side serves, the answer to a staged get it asked).
 *
 * <p>A message up to the large-message threshold comes in one {@code MESSAGE} record, copied into a pooled buffer
 * of this side's domain taken only when it can have one ({@code tryAllocate}; otherwise the record waits in the
 * ring, {@link #stalled()}); a larger one is announced by a {@code LARGE} record and copied chunk by chunk, into a
 * buffer that grows with its bytes beyond the peer's {@link ReceiveBudget}. Every message passes the connection's
 * {@link CreditGate} before a buffer is taken for it, so a peer without a credit costs nothing.
 */
final class ShmInbox {

    /** The largest buffer the domain's pool keeps (BufferPool's largest size class). */
    private static final int LARGEST_POOLED = 1 << 20;

    private final ShmConnection conn;
    private final WireState state;
    private final MemoryDomain memory;
    private final SoftwareTarget target;
    private final ShmOutbox outbox;
    private final WireEventQueue events;
    /** What the peer may make this side commit ahead of its bytes (large messages). */
    private final ReceiveBudget.Connection budget;
    private final int maxMessage;
    /** Reused: at most one large message arrives at a time. */
    private final StagedTransfer.Incoming incomingMessage = new StagedTransfer.Incoming();
    private CreditGate gate;
    private StagedTransfer.Incoming incoming;
    private boolean stalled;
    private boolean peerCloseSeen;

    ShmInbox(ShmConnection conn, WireState state, MemoryDomain memory, SoftwareTarget target, ShmOutbox outbox,
             WireEventQueue events, ReceiveBudget.Connection budget, int maxMessage) {
        this.conn = conn;
        this.state = state;
        this.memory = memory;
        this.target = target;
        this.outbox = outbox;
        this.events = events;
        this.budget = budget;
        this.maxMessage = maxMessage;
    }

    /** The connection's credit gate (see {@code Wire#attach}). */
    void attach(CreditGate gate) {
        this.gate = gate;
    }

    /** The payload's first long, after checking the record is exactly {@code expected} bytes. */
    static long fixed(MemorySegment d, long at, int length, int expected) {
        if (length != expected) {
            throw new ShmProtocolException("record of " + length + " bytes where " + expected + " are due");
        }
        return d.get(ValueLayout.JAVA_LONG, at);
    }

    /** Refuses a record of the {@code what} kind while a staged transfer comes in: nothing may interleave. */
    void requireIdle(String what) {
        if (incoming != null) {
            throw new ShmProtocolException(what + " in the middle of a staged transfer");
        }
    }

    /** The chunks that follow are {@code in}'s (a staged put served here, or a staged get's answer). */
    void expect(StagedTransfer.Incoming in) {
        incoming = in;
    }

    /** Whether the last read stopped at a record that waits for a buffer. */
    boolean stalled() {
        return stalled;
    }

    /** A new read begins. */
    void resetStall() {
        stalled = false;
    }

    /** Whether the peer's close word arrived. */
    boolean peerCloseSeen() {
        return peerCloseSeen;
    }

    /** A message record; false when it must wait in the ring for a buffer. */
    boolean onMessage(long word, MemorySegment d, long at, int length) {
        int type = ControlWord.type(word);
        if (type != ControlWord.DATA && type != ControlWord.BATCH) {
            if (type == ControlWord.CLOSE) {
                peerCloseSeen = true;
                drop(state.closeCause());
            }
            events.received(word, null); // the engine checks the word
            return true;
        }
        requireIdle("a message");
        if (type == ControlWord.BATCH) {
            throw new ShmProtocolException("a coalesced frame: this transport does not coalesce");
        }
        gate.requireCredit();
        if (length > maxMessage) {
            throw new ShmProtocolException("message of " + length + " bytes (the limit is " + maxMessage + ")");
        }
        Buffer b = receiveBuffer(length);
        if (b == null) {
            stalled = true;
            return false;
        }
        gate.admit();
        MemorySegment.copy(d, at, b.capacitySegment(), 0, length);
        events.received(word, b);
        return true;
    }

    /**
     * A buffer for an arriving message, or null while the pool is growing in the background (the record then waits
     * in the ring). Messages beyond the pool's largest class get a registration of their own, which a polling thread
     * can only wait for, as every transport's receive path does.
     */
    private Buffer receiveBuffer(int length) {
        Buffer b = memory.buffers().tryAllocate(length);
        return b != null || length <= LARGEST_POOLED ? b : memory.allocate(length);
    }

    /** A large message's announcement; false when it must wait in the ring for a buffer. */
    boolean onLarge(long word, MemorySegment d, long at, int length) {
        long total = fixed(d, at, length, 8);
        if (incoming != null || ControlWord.type(word) != ControlWord.DATA || total <= 0 || total > maxMessage) {
            throw new ShmProtocolException("large message of " + total + " bytes, word 0x" + Long.toHexString(word));
        }
        gate.requireCredit();
        // The record only announces the message; its bytes come chunk by chunk: beyond the peer's receive budget the
        // buffer starts small and grows as they arrive (onChunk).
        long first = budget.firstPiece(total);
        Buffer b = receiveBuffer((int) first);
        if (b == null) {
            budget.frameDone(); // what was reserved for it goes back: the record waits and asks again
            stalled = true;
            return false;
        }
        gate.admit();
        StagedTransfer.Incoming in = incomingMessage.set(StagedTransfer.MESSAGE, total);
        in.word = word;
        in.buffer = b;
        in.destination = b.capacitySegment();
        incoming = in;
        return true;
    }

    /** The next chunk of the staged transfer coming in, {@code length} bytes at {@code position} of the pool. */
    void onChunk(long position, long length) {
        StagedTransfer.Incoming in = incoming;
        if (in == null || length <= 0 || length > in.total - in.done) {
            throw new ShmProtocolException("chunk of " + length + " bytes with "
                    + (in == null ? "no transfer" : in.total - in.done + " bytes due"));
        }
        int n = (int) length;
        long index = conn.poolIn.check(position, n);
        if (in.purpose == StagedTransfer.PUT) {
            // Revoked meanwhile, or never granted: nothing more of it lands.
            if (in.grant == null || !in.grant.isOpen()
                    || !target.copyIn(in.grant, in.address + in.done, conn.inPool.data, index, n)) {
                in.refused = true;
            }
        } else {
            if (in.purpose == StagedTransfer.MESSAGE && in.done + n > in.buffer.capacity()) {
                growIncoming(in, in.done + n);
            }
            MemorySegment.copy(conn.inPool.data, index, in.destination, in.done, n);
        }
        conn.poolIn.free(position, n);
        outbox.ringPeerLater();
        in.done += n;
        if (in.done == in.total) {
            incoming = null;
            switch (in.purpose) {
                case StagedTransfer.MESSAGE -> {
                    budget.frameDone();
                    budget.delivered(in.total);
                    events.received(in.word, in.buffer.length((int) in.total));
                }
                case StagedTransfer.PUT -> {
                    boolean ok = in.grant != null && !in.refused;
                    if (in.grant != null) {
                        target.release(in.grant);
                    }
                    outbox.answer(ok ? Records.OK : Records.REFUSED, in.id);
                }
                default -> events.completed(in.op, 0);
            }
        }
    }

    /** The target revoked the grant under a staged get answer coming in: the get fails, refused. */
    void onAbort() {
        StagedTransfer.Incoming in = incoming;
        if (in == null || in.purpose != StagedTransfer.GET_ANSWER) {
            throw new ShmProtocolException("abort with no staged answer under way");
        }
        incoming = null;
        events.failed(in.op, SoftwareTarget.refused());
    }

    /**
     * A message whose memory follows its bytes needs room for {@code need}: the next buffer, twice as large (or the
     * message's size), takes over what arrived. Only what the pool can give now; a polling thread never waits for
     * more (the message then grows as far as it must, from a registration of its own, as receiveBuffer does).
     */
    private void growIncoming(StagedTransfer.Incoming in, long need) {
        Buffer bigger = memory.allocate((int) ReceiveBudget.nextPiece(in.total, need, in.buffer.capacity()));
        MemorySegment.copy(in.buffer.capacitySegment(), 0, bigger.capacitySegment(), 0, in.done);
        in.buffer.release();
        in.buffer = bigger;
        in.destination = bigger.capacitySegment();
    }

    /** A staged transfer coming in is cut short by a close: its buffer and pin go, a get waiting for it fails. */
    void drop(TransportException cause) {
        StagedTransfer.Incoming in = incoming;
        incoming = null;
        budget.close();
        if (in == null) {
            return;
        }
        if (in.buffer != null) {
            in.buffer.release();
        }
        if (in.grant != null) {
            target.release(in.grant);
        }
        if (in.op != null) {
            events.failed(in.op, cause);
        }
    }
}
