package dev.rivulet.core.engine;

import dev.rivulet.core.credit.BatchFraming;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.credit.CreditGate;
import dev.rivulet.core.credit.CreditLedger;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.internal.BufferLending;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.metrics.TransportMetrics;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * The receive side of one endpoint: messages arrive through the connection's {@link CreditGate}, wait in order for
 * the {@code receive()} subscriber, and the subscriber's demand becomes receive slots, hence credits for the peer
 * ({@link CreditLedger#slotsToGrant}). Progress thread only.
 *
 * <p>Messages already credited outlive a subscriber that cancels: they wait for the next one (a caller reading one
 * message at a time with {@code receive().next()} loses nothing between two reads). They wait for the transport's
 * {@code receiveLinger}; if no subscriber comes by then, the endpoint <em>discards</em>: it releases what waits and
 * every message that arrives, granting credits as they are used, until a subscriber comes. A receiver that stopped
 * listening so never stalls its sender, and what it did not read is counted ({@code rivulet.messages.discarded}),
 * not held.
 *
 * <p>A message that arrives while the subscriber has demand and nothing waits before it is lent where it sits (a
 * record of a coalesced frame inside the frame, a whole message in its receive buffer): no copy unless the
 * subscriber retains it. Only a record that must wait is copied into a buffer of its own, since its frame goes back
 * to the pool when the frame has been handled.
 */
final class Inbound {

    private final EndpointEngine engine;
    private final Wire wire;
    private final MemoryDomain memory;
    private final TransportMetrics metrics;
    private final CreditLedger ledger;
    private final CreditGate gate;
    private final ArrayDeque<Buffer> undelivered = new ArrayDeque<>();
    /** The views messages are lent as: one set per endpoint, whichever subscriber comes and goes. */
    private final BufferLending lending = Internals.memory().newLending();
    /** Lends or queues each record of a coalesced frame, in order. */
    private final BatchFraming.RecordSink unpacker = this::unpackRecord;
    /** The coalesced frame being unpacked. */
    private @Nullable Buffer frame;
    private ReceiveFlux.@Nullable Receiver receiver;
    private final long lingerNanos;
    /** Nobody listens since a subscriber cancelled; what waits is kept for the next one until the deadline. */
    private boolean lingering;
    /** When what waits stops waiting (coarse loop clock), while {@link #lingering}. */
    private long lingerDeadline;
    /** No subscriber and the linger is over: every message is discarded as it arrives, its credit granted again. */
    private boolean discarding;
    private long discarded;

    Inbound(EndpointEngine engine, Wire wire, MemoryDomain memory, TransportMetrics metrics, CreditLedger ledger,
            long lingerNanos) {
        this.engine = engine;
        this.lingerNanos = lingerNanos;
        this.wire = wire;
        this.memory = memory;
        this.metrics = metrics;
        this.ledger = ledger;
        this.gate = ledger.gate();
    }

    /** Messages that arrived and wait for a subscriber's demand. */
    int undelivered() {
        return undelivered.size();
    }

    /** Messages discarded because nobody listened (see the class comment). */
    long discarded() {
        return discarded;
    }

    /**
     * A {@code DATA} or {@code BATCH} word arrived with its payload (its credits are counted already): the gate takes
     * its messages, which then wait for the subscriber. A message that breaks the credit rules ends the endpoint.
     */
    void arrived(int type, Buffer payload) {
        if (engine.isClosed() && !engine.isPeerClosed()) {
            payload.release();
            return;
        }
        int n;
        try {
            n = gate.take(type, payload.capacitySegment(), payload.length());
        } catch (CreditProtocolException e) {
            payload.release();
            engine.broken(e);
            return;
        }
        if (discarding) {
            payload.release();
            discard(n);
            grantWhileDiscarding();
            return;
        }
        if (type == ControlWord.DATA) {
            metrics.bytesReceived(payload.length());
            if (canDeliverNow()) {
                try {
                    receiver.next(lending, payload, 0, payload.length());
                } finally {
                    payload.release();
                }
            } else {
                undelivered.addLast(payload);
            }
        } else {
            metrics.bytesReceived(payload.length() - (long) n * BatchFraming.RECORD_HEADER);
            frame = payload;
            try {
                BatchFraming.unpack(payload.capacitySegment(), payload.length(), unpacker);
            } finally {
                frame = null;
                payload.release();
            }
        }
        serviceReceiver();
    }

    /** Whether a message arriving now goes straight to the subscriber: it wants one and none waits before it. */
    private boolean canDeliverNow() {
        ReceiveFlux.Receiver r = receiver;
        return r != null && undelivered.isEmpty() && r.wantsMore();
    }

    private void unpackRecord(MemorySegment frameMemory, long offset, int length) {
        if (canDeliverNow()) {
            receiver.next(lending, frame, offset, length);
            return;
        }
        Buffer b = memory.allocate(length);
        MemorySegment.copy(frameMemory, offset, b.capacitySegment(), 0, length);
        undelivered.addLast(b);
    }

    /** A receiver subscribed. */
    void attach(ReceiveFlux.Receiver r) {
        if (receiver != null) {
            r.error(new InvalidRequestException("receive() already has a subscriber"));
            return;
        }
        if (engine.isClosed() && !engine.isPeerClosed() && undelivered.isEmpty()) {
            if (engine.closeCause() instanceof ResourceClosedException) {
                r.complete();
            } else {
                r.error(engine.closeCause());
            }
            return;
        }
        receiver = r;
        lingering = false;
        discarding = false; // from the next message on: what arrived meanwhile is gone, as the linger said
        serviceReceiver();
    }

    /**
     * Runs every poll while a cancelled subscriber's messages linger: once the linger is over with nobody listening,
     * the endpoint discards (see the class comment).
     */
    void checkLinger(long now) {
        if (!lingering || now - lingerDeadline < 0) {
            return;
        }
        lingering = false;
        startDiscarding();
    }

    private void startDiscarding() {
        discarding = true;
        int n = undelivered.size();
        releaseUndelivered();
        discard(n);
        grantWhileDiscarding();
    }

    private void discard(int n) {
        if (n > 0) {
            discarded += n;
            metrics.discarded(n);
        }
    }

    /** Keeps the peer's window open while discarding, as a subscriber asking for everything would. */
    private void grantWhileDiscarding() {
        if (engine.isClosed()) {
            return;
        }
        int n = ledger.slotsToGrant(Long.MAX_VALUE, wire.receiveWindow(), 0);
        if (n > 0) {
            ledger.grant(n);
            wire.postReceives(n);
        }
    }

    /** Runs on demand changes and arrivals: delivers, then posts receives and owes credits to match demand. */
    void serviceReceiver() {
        ReceiveFlux.Receiver r = receiver;
        if (r == null) {
            return;
        }
        if (r.isCancelled()) {
            detachCancelled();
            return;
        }
        r.collectDemand();
        while (r.demand > 0 && !undelivered.isEmpty()) {
            Buffer b = undelivered.pollFirst();
            try {
                r.next(lending, b, 0, b.length());
            } finally {
                b.release();
            }
            if (r.isCancelled()) {
                detachCancelled();
                return;
            }
        }
        if (engine.isClosed()) {
            if (undelivered.isEmpty()) {
                receiver = null;
                if (engine.isPeerClosed() || engine.closeCause() instanceof ResourceClosedException) {
                    r.complete();
                } else {
                    r.error(engine.closeCause());
                }
            }
            return;
        }
        int n = ledger.slotsToGrant(r.demand, wire.receiveWindow(), undelivered.size());
        if (n > 0) {
            ledger.grant(n); // first: a wire that admits arrivals finds the new credits in its gate
            wire.postReceives(n);
        }
    }

    /**
     * The receiver cancelled. While the endpoint is open, messages already credited wait for the next subscriber
     * for the linger; once it is closed there will be none worth holding them for.
     */
    private void detachCancelled() {
        receiver = null;
        if (engine.isClosed()) {
            releaseUndelivered();
        } else if (lingerNanos == 0) {
            startDiscarding();
        } else {
            lingering = true;
            lingerDeadline = engine.loop().coarseNanos() + lingerNanos;
        }
    }

    private void releaseUndelivered() {
        Buffer b;
        while ((b = undelivered.pollFirst()) != null) {
            b.release();
        }
    }

    /** The receiver of a closed endpoint gets what it may still take, then its end; one that throws, nothing more. */
    void endReceiver() {
        try {
            if (!engine.isPeerClosed() || receiver == null || receiver.isCancelled()) {
                // Messages that arrived before a graceful close go to the receiver listening now; with nobody
                // listening they would be held for good by an endpoint that is over.
                releaseUndelivered();
            }
            serviceReceiver();
        } catch (Throwable t) {
            receiver = null;
            releaseUndelivered();
            throw t;
        }
    }
}
