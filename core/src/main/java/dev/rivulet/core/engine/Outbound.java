package dev.rivulet.core.engine;

import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.OperationObserver;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.credit.CreditLedger;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.metrics.TransportMetrics;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Everything one endpoint posts, in order: the pending FIFO, the send slots ({@code sendQueueDepth}), the peer's
 * credits for sends ({@link CreditLedger#window()}), small sends coalesced into one frame, the credits this side owes
 * (on a data word, or a standalone one), and the completion of what was posted, which releases its memory and
 * signals its subscriber. Progress thread only.
 *
 * <p>An op at the head of the FIFO that cannot go yet (no credit, no free slot, NO_RESOURCE from the wire) keeps
 * everything behind it waiting, so order holds across sends, puts, gets and atomics; {@link #drain()} runs again
 * after the next completions.
 */
final class Outbound {

    private static final Logger log = LoggerFactory.getLogger(Outbound.class);

    /** {@link Op#startNanos} of an op nobody times. */
    static final long UNTIMED = Long.MIN_VALUE;

    private final EndpointEngine engine;
    private final Wire wire;
    private final MemoryDomain memory;
    private final TransportMetrics metrics;
    private final @Nullable OperationObserver observer;
    private final CreditLedger ledger;
    private final int sendDepth;
    private final int maxBatchBytes;
    /** Whether the wire writes a send's two parts itself ({@link Wire#gathers()}); else {@link #join} does. */
    private final boolean gathers;
    /**
     * Messages one claimed frame carries at most: a quarter of the receive depth, so that while the peer takes one
     * frame the next is on its way and the credits it returns arrive before the window runs dry.
     */
    private final int claimedPerFrame;
    private final Carriers carriers;
    private final RmaPieces pieces;
    private final OpFifo pending = new OpFifo();
    /**
     * Ops added to the FIFO less those taken off it since the pending gauge was last told: it hears the difference
     * once per {@link #drain()} (usually none, an op being posted in the drain that follows its arrival), not two
     * updates of a shared counter per message.
     */
    private int pendingUnreported;
    private int inFlight;
    private int sendsInFlight;
    private int maxSendsInFlight;
    private int controlInFlight;
    private long retries;
    private long creditStalls;
    private long stallStart;
    private long batchesSent;

    Outbound(EndpointEngine engine, Wire wire, MemoryDomain memory, TransportMetrics metrics,
             @Nullable OperationObserver observer, CreditLedger ledger) {
        this.engine = engine;
        this.wire = wire;
        this.memory = memory;
        this.metrics = metrics;
        this.observer = observer;
        this.ledger = ledger;
        this.sendDepth = wire.capabilities().sendQueueDepth();
        this.maxBatchBytes = wire.maxBatchBytes();
        this.gathers = wire.gathers();
        this.claimedPerFrame = Math.max(1, wire.capabilities().receiveQueueDepth() / 4);
        this.carriers = new Carriers(engine);
        this.pieces = new RmaPieces(engine, wire.capabilities().maxRmaSize());
    }

    /** Pins what {@code op} lets the provider touch and queues it; fails it when its memory is closed already. */
    boolean add(Op op) {
        if (!op.pin()) {
            fail(op, new InvalidMemoryException("memory region was closed before the operation was posted"));
            return false;
        }
        pending.addLast(op);
        pendingUnreported++;
        return true;
    }

    /**
     * A send in two parts for a wire that takes one buffer: both copied into one pooled buffer now, just before it is
     * posted (so the copy runs on memory the pool handed out last, still in cache); false when the pool has no
     * buffer right now (the send waits, as a claimed frame does).
     */
    private boolean join(Op op) {
        Buffer head = op.buffer;
        Buffer body = Objects.requireNonNull(op.body());
        Buffer joined = memory.buffers().tryAllocate(head.length() + body.length());
        if (joined == null) {
            return false;
        }
        MemorySegment to = joined.capacitySegment();
        MemorySegment.copy(head.capacitySegment(), 0, to, 0, head.length());
        MemorySegment.copy(body.capacitySegment(), 0, to, head.length(), body.length());
        op.replaceMessage(joined.length(head.length() + body.length()));
        return true;
    }

    /** Nothing waits and nothing is posted, control words included: a graceful close may finish. */
    boolean isIdle() {
        return pending.isEmpty() && inFlight == 0 && controlInFlight == 0;
    }

    /** Ops still queued or posted: how many signals a close may still have to deliver. */
    int unfinished() {
        return pending.size() + inFlight;
    }

    /** Fails every op still queued, in order (the endpoint is closing). */
    void failPending(Throwable cause) {
        for (Op op; (op = pending.pollFirst()) != null; ) {
            pendingUnreported--;
            if (op.posted) {
                endPieces(op, cause); // a split put or get at the head: fails once its pieces are reported
            } else {
                fail(op, cause);
            }
        }
        reportPending();
    }

    /** Tells the pending gauge what changed since it last heard. */
    private void reportPending() {
        if (pendingUnreported != 0) {
            metrics.pendingDelta(pendingUnreported);
            pendingUnreported = 0;
        }
    }

    /** The flow-control snapshot, with the receive side's count of messages discarded (see {@link Inbound}). */
    EndpointStats stats(long discarded) {
        return new EndpointStats(ledger.window(), sendsInFlight, maxSendsInFlight, ledger.granted(),
                ledger.received(), ledger.sentMessages(), ledger.used(), (int) ledger.outstanding(),
                (int) ledger.maxOutstanding(), pending.size(), retries, creditStalls, batchesSent, discarded);
    }

    /** Posts pending ops in FIFO order until one must wait; returns how many left the FIFO. */
    int drain() {
        try {
            return post();
        } finally {
            reportPending();
        }
    }

    private int post() {
        int work = 0;
        Op op;
        while ((op = pending.peekFirst()) != null) {
            if (op.isCancelled()) {
                removeHead();
                if (op.posted) {
                    endPieces(op, null); // a split put or get: no further piece, done once those posted are back
                } else {
                    finish(op, false, 0, null);
                }
                work++;
                continue;
            }
            int rc;
            try {
                switch (op.kind) {
                    case SEND -> {
                        if (op.claims != null && !op.claims.hasItems()) {
                            // a claimed send with nothing (more) to encode leaves its place, credits or not
                            removeHead();
                            op.claims.headRemoved(null);
                            work++;
                            continue;
                        }
                        if (ledger.window() <= 0) {
                            if (stallStart == 0) {
                                stallStart = System.nanoTime();
                                creditStalls++;
                            }
                            return work;
                        }
                        if (inFlight >= sendDepth) {
                            return work;
                        }
                        if (op.claims != null) {
                            int claimed = postClaimed(op.claims);
                            if (claimed == Wire.NO_RESOURCE) {
                                return work;
                            }
                            work++;
                            continue; // sent a frame, or found nothing to encode: the check above takes it from here
                        }
                        int batched = inFlight > 0 && maxBatchBytes > 0 && ledger.window() > 1 ? postBatch() : -1;
                        if (batched == Wire.NO_RESOURCE) {
                            return work;
                        }
                        if (batched >= 0) {
                            work++;
                            continue;
                        }
                        if (!gathers && op.body() != null && !join(op)) {
                            noResource();
                            return work;
                        }
                        long grant = ledger.piggybackGrant();
                        rc = wire.send(ControlWord.encode(ControlWord.DATA, grant), op);
                        if (rc == Wire.NO_RESOURCE) {
                            noResource();
                            return work;
                        }
                        dataPosted(grant, 1);
                        metrics.bytesSent(op.bytes());
                    }
                    case PUT, GET, ATOMIC -> {
                        if (inFlight >= sendDepth) {
                            return work;
                        }
                        if (pieces.needsSplit(op)) {
                            if (postPiece(op) == Wire.NO_RESOURCE) {
                                return work;
                            }
                            work++;
                            continue; // the next piece, if any, goes as the head again
                        }
                        rc = wire.rma(op);
                        if (rc == Wire.NO_RESOURCE) {
                            noResource();
                            return work;
                        }
                    }
                    case FENCE -> {
                        if (inFlight > 0) {
                            return work;
                        }
                        rc = Wire.DONE;
                    }
                    case FLUSH -> {
                        if (inFlight > 0) {
                            return work;
                        }
                        rc = wire.flush(op);
                        if (rc == Wire.NO_RESOURCE) {
                            noResource();
                            return work;
                        }
                    }
                    default -> throw new IllegalStateException("unknown op " + op.kind);
                }
            } catch (TransportException e) {
                removeHead();
                fail(op, e);
                work++;
                continue;
            }
            removeHead();
            work++;
            op.posted = true;
            metrics.posted(op.kind);
            if (rc == Wire.DONE) {
                finish(op, true, 0, null);
            } else {
                inFlight++;
                if (op.kind == OpKind.SEND && ++sendsInFlight > maxSendsInFlight) {
                    maxSendsInFlight = sendsInFlight;
                }
            }
        }
        return work;
    }

    /**
     * Small-message coalescing: while the send queue is busy, the small sends waiting at the head of the FIFO go as
     * one {@link ControlWord#BATCH} frame ({@link Carriers}), consuming one credit per message. Returns -1 when there
     * is nothing to coalesce, otherwise the wire's answer.
     */
    private int postBatch() {
        Op carrier = carriers.pack(pending, ledger.window(), maxBatchBytes, memory);
        if (carrier == null) {
            return -1;
        }
        int n = carrier.memberCount;
        carrier.startNanos = startStamp();
        carrier.pin();
        long grant = ledger.piggybackGrant();
        int rc;
        try {
            rc = wire.send(ControlWord.encode(ControlWord.BATCH, grant), carrier);
        } catch (TransportException e) {
            carriers.recycle(carrier);
            throw e;
        }
        if (rc == Wire.NO_RESOURCE) {
            carriers.recycle(carrier);
            noResource();
            return rc;
        }
        dataPosted(grant, n);
        long bytes = 0;
        for (int i = 0; i < n; i++) {
            Op m = pending.pollFirst();
            m.posted = true;
            bytes += m.buffer.length();
        }
        // Counted once for the frame: shared counters take one update per frame, not three per message.
        pendingUnreported -= n;
        metrics.posted(OpKind.SEND, n);
        metrics.bytesSent(bytes);
        batchesSent++;
        if (rc == Wire.DONE) {
            completeCarrier(carrier, null);
        } else {
            framePosted(n);
        }
        return rc;
    }

    /**
     * A claimed send at the head of the FIFO: its next frame, encoded now into its final place
     * ({@link ClaimedSends#encodeFrame}), goes as one {@link ControlWord#BATCH} (or one message where the wire does
     * not coalesce), consuming one credit per message. Returns -1 when the stream has nothing to encode,
     * {@link Wire#NO_RESOURCE} when the frame must wait (no pool buffer yet, or the wire is full), else the wire's
     * answer. A frame the wire refused is kept by the stream and posted first next time.
     */
    private int postClaimed(ClaimedSends<?> stream) {
        Op frame = stream.encodeFrame(maxBatchBytes, Math.min(ledger.window(), claimedPerFrame), memory);
        if (frame == null) {
            return stream.hasItems() ? Wire.NO_RESOURCE : -1;
        }
        int n = Math.max(1, frame.batchRecords);
        frame.startNanos = startStamp();
        frame.pin();
        long grant = ledger.piggybackGrant();
        int rc;
        try {
            rc = wire.send(ControlWord.encode(frame.isBatch() ? ControlWord.BATCH : ControlWord.DATA, grant), frame);
        } catch (TransportException e) {
            finish(frame, false, 0, e);
            return Wire.DONE; // the stream failed; its place leaves the FIFO on the next pass
        }
        if (rc == Wire.NO_RESOURCE) {
            stream.park(frame);
            noResource();
            return rc;
        }
        dataPosted(grant, n);
        frame.posted = true;
        metrics.posted(OpKind.SEND, n);
        metrics.bytesSent(frame.bytes());
        if (frame.isBatch()) {
            batchesSent++;
        }
        if (rc == Wire.DONE) {
            finish(frame, true, 0, null);
        } else {
            framePosted(n);
        }
        return rc;
    }

    /**
     * The next piece of the put or get {@code whole} at the head of the FIFO ({@link RmaPieces}). The operation
     * leaves the FIFO with its last piece, or with a piece the wire refused for good (no further piece is posted
     * then); it finishes once every piece posted was reported. Returns the wire's answer.
     */
    private int postPiece(Op whole) {
        Op piece = pieces.next(whole);
        int rc;
        try {
            rc = wire.rma(piece);
        } catch (TransportException e) {
            pieces.recycle(piece);
            removeHead();
            endPieces(whole, e);
            return Wire.DONE;
        }
        if (rc == Wire.NO_RESOURCE) {
            pieces.recycle(piece);
            noResource();
            return rc;
        }
        if (!whole.posted) {
            whole.posted = true;
            metrics.posted(whole.kind);
        }
        if (pieces.posted(piece)) {
            removeHead();
            whole.piecesEnded = true;
        }
        if (rc == Wire.DONE) {
            pieceReported(piece, null);
        } else {
            inFlight++;
        }
        return rc;
    }

    /**
     * The wire reported {@code piece}. A failed piece ends its operation's posting (while it posts pieces, the
     * operation is the head of the FIFO); the operation finishes, with its first failure if any, once no piece of it
     * is outstanding and none will follow.
     */
    private void pieceReported(Op piece, @Nullable Throwable error) {
        Op whole = piece.whole;
        pieces.recycle(piece);
        whole.piecesOut--;
        if (!whole.piecesEnded) {
            if (error == null) {
                return; // more pieces to post
            }
            removeHead();
        }
        endPieces(whole, error);
    }

    /**
     * No further piece of {@code whole}, which is out of the FIFO, is posted; it finishes once the pieces it posted
     * were all reported, with the first failure among them or {@code error}.
     */
    private void endPieces(Op whole, @Nullable Throwable error) {
        whole.piecesEnded = true;
        if (whole.pieceFailure == null) {
            whole.pieceFailure = error;
        }
        if (whole.piecesOut == 0) {
            finish(whole, whole.posted, 0, whole.pieceFailure);
        }
    }

    /** A frame carrying {@code messages} sends is posted and takes one slot until its completion. */
    private void framePosted(int messages) {
        inFlight++;
        sendsInFlight += messages;
        if (sendsInFlight > maxSendsInFlight) {
            maxSendsInFlight = sendsInFlight;
        }
    }

    /**
     * A coalesced frame's completion finishes its sends in order. Those nobody times are counted for the frame
     * together, before the first is signalled (a subscriber that sees its send complete finds it counted); a timed
     * one is counted with its own latency.
     */
    private void completeCarrier(Op carrier, @Nullable Throwable error) {
        int n = carrier.memberCount;
        Op[] members = carrier.members;
        int untimed = 0;
        int cancelled = 0;
        for (int i = 0; i < n; i++) {
            Op m = members[i];
            if (m.startNanos == UNTIMED) {
                untimed++;
                if (m.isCancelled()) {
                    cancelled++;
                }
            }
        }
        if (error != null) {
            countFinished(1, untimed);
        } else {
            countFinished(0, untimed - cancelled);
            countFinished(2, cancelled);
        }
        for (int i = 0; i < n; i++) {
            Op m = members[i];
            members[i] = null;
            finish(m, true, 0, error, m.startNanos != UNTIMED);
        }
        carriers.recycle(carrier);
    }

    /**
     * A data word carrying {@code grant} owed credits and {@code messages} messages was posted: the grant is
     * announced, the peer's credits are used, and a credit stall, if one was running, is over.
     */
    private void dataPosted(long grant, int messages) {
        ledger.announced(grant);
        ledger.sent(messages);
        if (stallStart != 0) {
            metrics.creditStall(System.nanoTime() - stallStart);
            stallStart = 0;
        }
    }

    private void countFinished(int outcome, int sends) {
        if (sends > 0) {
            metrics.finished(OpKind.SEND, true, outcome, -1, sends);
        }
    }

    private void removeHead() {
        pending.pollFirst();
        pendingUnreported--;
    }

    private void noResource() {
        retries++;
        metrics.retry();
    }

    /** Grants the credits owed to the peer in a standalone word when no data message can carry them now. */
    void sendOwedCredits() {
        if (controlInFlight > 0 || engine.isClosed()) {
            return;
        }
        long grant = ledger.standaloneGrant();
        if (grant == 0) {
            return;
        }
        try {
            int rc = wire.send(ControlWord.encode(ControlWord.CREDIT, grant), null);
            if (rc == Wire.NO_RESOURCE) {
                return;
            }
            ledger.announced(grant);
            if (rc == Wire.POSTED) {
                controlInFlight++;
            }
        } catch (TransportException e) {
            engine.broken(e);
        }
    }

    // ---- what the wire reports of posted ops ----

    void completed(Op op, long value) {
        retire(op);
        if (op.memberCount > 0) {
            completeCarrier(op, null);
        } else if (op.whole != null) {
            pieceReported(op, null);
        } else {
            finish(op, true, value, null);
        }
    }

    void failed(Op op, TransportException error) {
        retire(op);
        if (op.memberCount > 0) {
            completeCarrier(op, error);
        } else if (op.whole != null) {
            pieceReported(op, error);
        } else {
            finish(op, true, 0, error);
        }
    }

    private void retire(Op op) {
        inFlight--;
        if (op.kind == OpKind.SEND) {
            sendsInFlight -= Math.max(1, op.batchRecords);
        }
    }

    void controlCompleted() {
        controlInFlight--;
    }

    // ---- completion ----

    /**
     * An op's start time, read only when someone consumes its latency (a bound meter registry or an observer):
     * otherwise {@link #UNTIMED}, sparing the two clock reads per op.
     */
    long startStamp() {
        return observer != null || metrics.timesOperations() ? System.nanoTime() : UNTIMED;
    }


    void fail(Op op, Throwable error) {
        finish(op, op.posted, 0, error);
    }

    private void finish(Op op, boolean wasPosted, long value, Throwable error) {
        finish(op, wasPosted, value, error, true);
    }

    /** Finishes {@code op}: its memory goes, it is counted unless {@code count} says it was already, and signalled. */
    private void finish(Op op, boolean wasPosted, long value, Throwable error, boolean count) {
        if (op.claims != null) {
            op.claims.headRemoved(error); // a claimed send's place, not an operation: nothing of it was posted
            return;
        }
        long bytes = op.bytes();
        int messages = Math.max(1, op.batchRecords);
        op.releaseResources();
        boolean cancelled = op.isCancelled();
        long nanos = op.startNanos == UNTIMED ? -1 : System.nanoTime() - op.startNanos;
        if (count) {
            metrics.finished(op.kind, wasPosted, error != null ? 1 : cancelled ? 2 : 0, nanos, messages);
        }
        if (observer != null) {
            try {
                observer.onComplete(op.kind.operation(op.atomic, op.width), bytes, nanos, error, op.context);
            } catch (Throwable t) {
                log.warn("operation observer failed", t);
            }
        }
        try {
            if (error == null) {
                op.sink.opCompleted(op, value);
            } else {
                op.sink.opFailed(op, error);
            }
        } catch (Throwable t) {
            engine.fault(t); // a subscriber's handler threw on the loop: the endpoint ends, the other signals still go out
        }
    }
}
