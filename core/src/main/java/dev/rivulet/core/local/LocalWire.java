package dev.rivulet.core.local;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.credit.CreditGate;
import dev.rivulet.core.engine.Op;
import dev.rivulet.core.engine.OpKind;
import dev.rivulet.core.engine.Wire;
import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.MessageTooLargeException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.remote.SoftwareTarget;
import org.jctools.queues.atomic.SpscAtomicArrayQueue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One side of an in-JVM connection, behaving like a queue pair on a NIC:
 *
 * <ul>
 *   <li>posts go into a bounded work queue ({@code local.nativeQueueDepth}); a full queue answers NO_RESOURCE;</li>
 *   <li>the owner's next poll executes the queued work, as a NIC would: a send is copied into a buffer of the
 *       peer's memory domain and handed to the peer's inbox; puts, gets and atomics act directly on the peer's
 *       registered memory after the check every target makes (a live grant for this connection, its window and
 *       rights), with the region pinned;</li>
 *   <li>a completion is reported only after the data is in the peer's memory, so local completion implies remote
 *       completion and {@code flush} has nothing left to wait for;</li>
 *   <li>a put or get longer than {@code local.maxRmaSize} is refused, as a provider refuses one above its limit
 *       (the engine never posts one: it splits them).</li>
 * </ul>
 * Credit grants travel through an atomic counter and the close marker through the inbox, behind the data sent
 * before it. Messages leave the inbox through the connection's {@link CreditGate}, as on the wires that read a
 * message before it has a buffer, so the conformance kit runs the path those take.
 */
final class LocalWire implements Wire {

    private static final Object CLOSE_MARKER = new Object();
    private static final long DATA_WORD = ControlWord.encode(ControlWord.DATA, 0);
    private static final long BATCH_WORD = ControlWord.encode(ControlWord.BATCH, 0);
    /** Largest coalesced frame: a bounce buffer's worth, as a NIC's eager limit would be. */
    static final int MAX_BATCH_BYTES = 16 << 10;

    /** A coalesced frame in the inbox (plain messages travel as bare buffers). */
    private record BatchArrival(Buffer frame) {
    }

    private final ProgressLoop loop;
    private final MemoryDomain domain;
    /** Where the peer's puts, gets and atomics on this side's memory are checked and carried out. */
    private final SoftwareTarget target;
    private final Capabilities caps;
    private final String remoteAddress;
    private final ArrayDeque<Op> work;
    private final int workDepth;
    private final SpscAtomicArrayQueue<Object> inbox;
    private final AtomicLong creditsIn = new AtomicLong();
    /** Peer threads currently delivering into {@link #inbox}; close waits for them (see {@link #deliver}). */
    private final AtomicInteger delivering = new AtomicInteger();
    private LocalWire peer;
    private CreditGate gate;
    private volatile boolean closed;
    private boolean peerGoneReported;

    LocalWire(ProgressLoop loop, MemoryDomain domain, Capabilities caps, int workDepth, String remoteAddress) {
        this.loop = loop;
        this.domain = domain;
        this.target = new SoftwareTarget(domain, this);
        this.caps = caps;
        this.workDepth = workDepth;
        this.work = new ArrayDeque<>(workDepth);
        // Credits bound data messages by the receive depth; close marker and slack on top.
        this.inbox = new SpscAtomicArrayQueue<>(caps.receiveQueueDepth() + 8);
        this.remoteAddress = remoteAddress;
    }

    ProgressLoop loop() {
        return loop;
    }

    static void connect(LocalWire a, LocalWire b) {
        a.peer = b;
        b.peer = a;
    }

    @Override
    public int send(long controlWord, Op op) {
        if (op == null) {
            switch (ControlWord.type(controlWord)) {
                case ControlWord.CREDIT -> {
                    peer.creditsIn.addAndGet(ControlWord.credits(controlWord));
                    peer.loop.wake();
                }
                case ControlWord.CLOSE -> {
                    if (!deliver(CLOSE_MARKER)) {
                        return DONE; // the peer is gone already; nobody to tell
                    }
                }
                default -> throw new IllegalArgumentException("not a protocol-only word: " + controlWord);
            }
            return DONE;
        }
        return post(op, controlWord);
    }

    @Override
    public void attach(CreditGate gate) {
        this.gate = gate;
    }

    @Override
    public void postReceives(int count) {
        // Receive buffers are taken from the domain's pool when a message lands, sized to it; the engine's count of
        // posted receives is what bounds the peer.
    }

    @Override
    public int rma(Op op) {
        if (op.kind() != OpKind.ATOMIC && op.local().length() > caps.maxRmaSize()) {
            // Refused as a provider with this limit refuses it: the engine posts longer ones in pieces.
            throw new MessageTooLargeException(op.kind().tag + " of " + op.local().length() + " bytes exceeds the "
                    + "largest of " + caps.maxRmaSize());
        }
        return post(op, 0);
    }

    private int post(Op op, long controlWord) {
        if (closed) {
            throw new ResourceClosedException("endpoint is closed");
        }
        if (work.size() >= workDepth) {
            return NO_RESOURCE;
        }
        op.wireTag = controlWord;
        work.addLast(op);
        return POSTED;
    }

    @Override
    public int maxBatchBytes() {
        return MAX_BATCH_BYTES;
    }

    @Override
    public int flush(Op op) {
        return DONE; // completions are only reported once the data is in the peer's memory
    }

    @Override
    public int poll(WireEvents events) {
        int n = 0;
        Op op;
        while ((op = work.pollFirst()) != null) {
            n++;
            if (closed) {
                events.failed(op, new ResourceClosedException("endpoint closed before the operation ran"));
                continue;
            }
            try {
                long value = execute(op);
                events.completed(op, value);
            } catch (TransportException e) {
                events.failed(op, e);
            }
        }
        long c = creditsIn.getAndSet(0);
        if (c > 0) {
            n++;
            events.received(ControlWord.encode(ControlWord.CREDIT, Math.min(c, ControlWord.MAX_CREDITS)), null);
        }
        Object m;
        while ((m = inbox.relaxedPoll()) != null) {
            n++;
            if (m == CLOSE_MARKER) {
                events.received(ControlWord.encode(ControlWord.CLOSE, 0), null);
            } else if (m instanceof BatchArrival(Buffer frame)) {
                arrived(events, BATCH_WORD, frame);
            } else {
                arrived(events, DATA_WORD, (Buffer) m);
            }
        }
        if (!closed && peer.closed && !peerGoneReported && inbox.isEmpty()) {
            // The peer closed without a close marker reaching us (its transport went away).
            peerGoneReported = true;
            events.broken(new ConnectionLostException("peer endpoint disappeared"));
            n++;
        }
        return n;
    }

    /** Hands a message from the inbox to the engine once the gate has admitted it against the peer's credits. */
    private void arrived(WireEvents events, long word, Buffer payload) {
        try {
            if (word == BATCH_WORD) {
                gate.admitBatch(payload.capacitySegment(), payload.length());
            } else {
                gate.admit();
            }
        } catch (CreditProtocolException e) {
            payload.release();
            events.broken(e);
            return;
        }
        events.received(word, payload);
    }

    private long execute(Op op) {
        LocalWire p = peer;
        if (p.closed) {
            throw new ConnectionLostException("peer endpoint is closed");
        }
        return switch (op.kind()) {
            case SEND -> {
                Buffer src = op.buffer();
                Buffer dst;
                try {
                    dst = p.domain.allocate(src.length());
                } catch (TransportException e) {
                    throw new ConnectionLostException("peer's memory domain is closed", e);
                }
                MemorySegment.copy(src.capacitySegment(), 0, dst.capacitySegment(), 0, src.length());
                long credits = ControlWord.credits(op.wireTag);
                if (credits > 0) {
                    p.creditsIn.addAndGet(credits);
                }
                if (!deliver(op.isBatch() ? new BatchArrival(dst) : dst)) {
                    dst.release();
                    throw new ConnectionLostException("peer endpoint is closed");
                }
                yield 0;
            }
            case PUT -> {
                p.target.put(op.remote().key(), op.remote().address(), op.local().segment(), 0,
                        op.local().length());
                yield 0;
            }
            case GET -> {
                p.target.get(op.remote().key(), op.remote().address(), op.local().segment(), 0,
                        op.local().length());
                yield 0;
            }
            case ATOMIC -> p.target.atomic(op.atomic(), op.width(), op.remote().key(), op.remote().address(),
                    op.operand(), op.compare());
            default -> throw new IllegalStateException("not a wire op: " + op.kind());
        };
    }

    /**
     * Hands {@code m} to the peer's inbox unless the peer closed. The {@code delivering} count closes the race
     * with {@link #close()}: the closer publishes {@code closed} and then waits for deliveries in progress, a
     * deliverer announces itself and then reads {@code closed}; so a message is either refused or drained.
     */
    private boolean deliver(Object m) {
        LocalWire p = peer;
        p.delivering.incrementAndGet();
        try {
            if (p.closed) {
                return false;
            }
            if (!p.inbox.offer(m)) {
                throw new ConnectionLostException("peer inbox overflow: credit protocol violated");
            }
        } finally {
            p.delivering.decrementAndGet();
        }
        p.loop.wake();
        return true;
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    @Override
    public String remoteAddress() {
        return remoteAddress;
    }

    @Override
    public void close() {
        closed = true;
        while (delivering.get() != 0) {
            Thread.onSpinWait();
        }
        // Whatever the peer delivered before we closed is drained by the engine's final poll; wake the peer so it
        // notices us gone even if it is idle.
        if (peer != null) {
            peer.loop.wake();
        }
    }
}
