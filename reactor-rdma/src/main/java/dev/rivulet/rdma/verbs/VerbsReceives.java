package dev.rivulet.rdma.verbs;

import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.rdma.verbs.sys.IbvQp;
import dev.rivulet.rdma.verbs.sys.IbvRecvWr;
import dev.rivulet.rdma.verbs.sys.IbvSge;
import dev.rivulet.rdma.wire.ConnectionFate;
import dev.rivulet.rdma.wire.OwedReceives;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The receive queue of one {@link VerbsWire}: every posted buffer is {@code verbs.messageSize} bytes (the largest
 * message), the engine's data slots plus the protocol-only ones stay posted ({@link OwedReceives}), posted as one
 * chain. The peer sends only against credits, and a reliable connection completes receives in posting order
 * ({@link ReceiveRing}), so messages reach the engine in send order. Every message carries its control word in the
 * immediate ({@link ImmediateWord}), so the posted pool buffer is what the engine hands up. Progress thread only.
 */
final class VerbsReceives {

    private static final MemoryAccess MEMORY = Internals.memory();

    private final ReceiveRing<Buffer> rq;
    private final MemorySegment qp;
    private final MemoryDomain memory;
    private final int messageSize;
    private final ConnectionFate fate;
    private final OwedReceives owed = new OwedReceives();
    /** Each slot's work request and scatter/gather entry, sliced once so that posting allocates nothing. */
    private final MemorySegment[] wrs;
    private final MemorySegment[] sges;
    private final MemorySegment badWr;
    /** The buffers of the chain being posted. */
    private final Buffer[] posting;
    /** Messages from the peer that completed a receive here. */
    private long messagesArrived;

    VerbsReceives(int slots, MemorySegment qp, MemoryDomain memory, int messageSize, ConnectionFate fate,
                  Arena arena) {
        this.rq = new ReceiveRing<>(slots);
        this.qp = qp;
        this.memory = memory;
        this.messageSize = messageSize;
        this.fate = fate;
        this.wrs = SendChain.slices(arena.allocate(IbvRecvWr.LAYOUT, slots), IbvRecvWr.SIZE, slots);
        this.sges = SendChain.slices(arena.allocate(IbvSge.LAYOUT, slots), IbvSge.SIZE, slots);
        this.badWr = arena.allocate(ValueLayout.ADDRESS);
        this.posting = new Buffer[slots];
    }

    /** The engine makes room for {@code count} more data messages. */
    void owe(int count) {
        owed.owe(count);
    }

    /**
     * Posts the receive buffers owed (protocol-only ones first) as one chain, as many as the receive queue takes.
     * Returns the failure of a post other than {@code ENOMEM} (which leaves them owed for the next poll), or null.
     */
    @Nullable TransportException post() {
        int want = Math.min(owed.total(), rq.free());
        if (want <= 0) {
            return null;
        }
        for (int i = 0; i < want; i++) {
            int slot = rq.slotAfter(i);
            Buffer b = memory.allocate(messageSize);
            posting[i] = b;
            MemorySegment sge = sges[slot];
            IbvSge.set(sge, b.address(), messageSize, VerbsDevice.lkey(MEMORY.descriptor(b.region())));
            IbvRecvWr.set(wrs[slot], ReceiveRing.wrId(slot), i + 1 < want ? wrs[rq.slotAfter(i + 1)]
                    : MemorySegment.NULL, sge, 1);
        }
        int rc = IbvQp.postRecv(qp, wrs[rq.slotAfter(0)], badWr);
        int posted = want;
        if (rc != 0) {
            long bad = badWr.get(ValueLayout.ADDRESS, 0).address();
            posted = 0;
            while (posted < want && wrs[rq.slotAfter(posted)].address() != bad) {
                posted++;
            }
        }
        for (int i = 0; i < want; i++) {
            if (i < posted) {
                rq.add(posting[i]);
            } else {
                posting[i].release();
            }
            posting[i] = null;
        }
        owed.posted(posted);
        if (rc != 0 && rc != Errno.ENOMEM) {
            return new ProviderException("ibv_post_recv failed", CompletionErrors.PROVIDER, rc, Errno.describe(rc),
                    null);
        }
        return null;
    }

    /** Whether a completion naming {@code slot} is in order: only the oldest posted receive may complete. */
    boolean isOldest(int slot) {
        return rq.isOldest(slot);
    }

    /** The oldest posted receive failed: its buffer goes back. */
    void dropOldest() {
        rq.takeOldest().release();
    }

    /**
     * The oldest posted receive completed with {@code length} bytes; {@code immediate} is its control word when
     * {@code withImmediate}. A message without one is not the peer's protocol: the connection breaks.
     */
    void arrived(WireEvents events, boolean withImmediate, int immediate, long length) {
        Buffer b = rq.takeOldest();
        if (!withImmediate) {
            b.release();
            fate.broken(events, new CreditProtocolException("the peer sent a message without a control word"));
            return;
        }
        messagesArrived++;
        long word = ImmediateWord.decode(immediate);
        if (OwedReceives.carriesData(word)) {
            owed.dataArrived(word, b, length);
            events.received(word, b);
        } else {
            b.release();
            owed.replace();
            events.received(word, null);
        }
    }

    long messagesArrived() {
        return messagesArrived;
    }

    /** Releases every posted receive's buffer (the queue pair is gone); returns how many. */
    int releaseAll() {
        int n = 0;
        while (rq.posted() > 0) {
            rq.takeOldest().release();
            n++;
        }
        return n;
    }
}
