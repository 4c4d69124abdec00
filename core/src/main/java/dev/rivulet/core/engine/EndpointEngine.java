package dev.rivulet.core.engine;

import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.credit.CreditGate;
import dev.rivulet.core.credit.CreditLedger;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.BufferFlux;
import dev.rivulet.core.Capabilities;
import dev.rivulet.core.CloseReason;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.Operation;
import dev.rivulet.core.OperationObserver;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.credit.BatchFraming;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteWrite;
import dev.rivulet.core.metrics.TransportMetrics;
import dev.rivulet.core.loop.Pollable;
import dev.rivulet.core.loop.ProgressLoop;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayDeque;

/**
 * The transport-neutral half of every endpoint: the reactive API, the credit protocol, the pending FIFO and the
 * bookkeeping that makes cancellation and close safe. A backend supplies only a {@link Wire}.
 *
 * <p>Path of one {@code send}: the subscriber's thread builds an {@link Op} and hands it to the progress loop
 * ({@link ProgressLoop#execute}); on the loop the op joins the pending FIFO ({@link #enqueue}); {@link #drain()}
 * posts it to the wire once a receiver credit and a send slot are free, in FIFO order, parking it again on
 * NO_RESOURCE; the wire's completion comes back through {@link WireEvents#completed} during {@link #poll()}, which
 * releases the buffer, frees the slot and signals the subscriber.
 *
 * <p>All mutable state below is confined to the progress loop thread.
 */
public final class EndpointEngine implements Endpoint, Pollable, WireEvents {

    private static final MemoryAccess MEMORY = Internals.memory();

    private static final Logger log = LoggerFactory.getLogger(EndpointEngine.class);

    private final Wire wire;
    private final ProgressLoop loop;
    private final MemoryDomain memory;
    private final TransportMetrics metrics;
    private final OperationObserver observer;
    /** {@link Op#startNanos} of an op nobody times. */
    private static final long UNTIMED = Long.MIN_VALUE;
    private final Capabilities caps;
    private final int sendDepth;
    private final int sendPrefetch;
    private final Runnable onClosed;
    private final int maxBatchBytes;
    private final Carriers carriers = new Carriers(this);
    private final Sinks.One<CloseReason> closedSink = Sinks.one();

    // ---- progress-thread state ----
    private final OpFifo pending = new OpFifo();
    private final ArrayDeque<Buffer> undelivered = new ArrayDeque<>();
    private int inFlight;
    private int sendsInFlight;
    private int maxSendsInFlight;
    private final CreditLedger ledger;
    private final CreditGate gate;
    private int controlInFlight;
    private long retries;
    private long creditStalls;
    private long stallStart;
    private long batchesSent;
    private ReceiveFlux.Receiver receiver;
    /** Copies each record of a coalesced frame into a buffer of its own, in order. */
    private final BatchFraming.RecordSink unpacker = this::unpackRecord;
    private boolean peerClosed;
    /** Inside {@code wire.poll}: {@link #enqueue} leaves draining to {@link #poll}. */
    private boolean inWirePoll;
    private TransportException closeCause;
    private volatile boolean closed;
    /** Set by {@link #closeGracefully}: new operations are refused, the endpoint closes once the rest is done. */
    private volatile boolean draining;
    private long drainDeadline;
    /** Streaming sends and puts subscribed and not yet terminated (a graceful close waits for them). */
    private final java.util.concurrent.atomic.AtomicInteger activeStreams =
            new java.util.concurrent.atomic.AtomicInteger();
    /** Ops of this endpoint handed to the loop's task queue and not yet run there (see {@link #submit}). */
    @SuppressWarnings("unused")
    private volatile int queued;
    private static final VarHandle QUEUED;

    static {
        try {
            QUEUED = MethodHandles.lookup().findVarHandle(EndpointEngine.class, "queued", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    public EndpointEngine(Wire wire, ProgressLoop loop, MemoryDomain memory, TransportMetrics metrics,
                          OperationObserver observer, int sendPrefetch, Runnable onClosed) {
        this.wire = wire;
        this.loop = loop;
        this.memory = memory;
        this.metrics = metrics;
        this.observer = observer;
        this.caps = wire.capabilities();
        this.sendDepth = caps.sendQueueDepth();
        this.sendPrefetch = Math.min(sendPrefetch, sendDepth);
        this.onClosed = onClosed;
        this.maxBatchBytes = wire.maxBatchBytes();
        this.ledger = new CreditLedger(caps.receiveQueueDepth());
        this.gate = ledger.gate();
        wire.attach(gate);
    }

    /** Starts polling this endpoint's wire. */
    public void start() {
        metrics.endpointOpened();
        loop.register(this);
    }

    ProgressLoop loop() {
        return loop;
    }

    int sendPrefetch() {
        return sendPrefetch;
    }

    // =====================================================================================================
    // Public API: builds ops on the caller's thread, validates what can be validated there.
    // =====================================================================================================

    @Override
    public Mono<Void> send(Buffer buffer) {
        return new OpMono<>(this, op -> {
            if (buffer == null) {
                throw new InvalidRequestException("buffer is null");
            }
            op.kind = OpKind.SEND;
            checkSendBuffer(buffer);
            op.buffer = buffer;
        }, buffer);
    }

    @Override
    public Mono<Void> send(Publisher<Buffer> buffers) {
        if (buffers == null) {
            return Mono.error(new InvalidRequestException("publisher is null"));
        }
        return new StreamingOps.StreamMono<>(this, buffers, actual -> new StreamingOps.Sends(this, actual));
    }

    @Override
    public BufferFlux receive() {
        return BufferFlux.lent(new ReceiveFlux(this));
    }

    private boolean warnedAboutLentRelease;

    /**
     * A subscriber released a buffer {@code receive()} had lent it: harmless to memory (the lender notices and does
     * not release twice) but a sign of code written for the old rule; said once per endpoint.
     */
    void lentBufferReleasedBySubscriber() {
        if (!warnedAboutLentRelease) {
            warnedAboutLentRelease = true;
            log.warn("a subscriber of receive() on {} released a buffer it did not retain: receive() releases each "
                    + "buffer when onNext returns; release only buffers you retain()", this);
        }
    }

    @Override
    public Mono<Void> put(RegisteredSlice local, RemoteMemory remote) {
        return new OpMono<>(this, op -> {
            checkRma(local, remote, Operation.PUT);
            op.kind = OpKind.PUT;
            op.local = local;
            op.remote = remote;
        }, null);
    }

    @Override
    public Mono<Void> put(Publisher<RemoteWrite> writes) {
        if (writes == null) {
            return Mono.error(new InvalidRequestException("publisher is null"));
        }
        return new StreamingOps.StreamMono<>(this, writes, actual -> new StreamingOps.Puts(this, actual));
    }

    @Override
    public Mono<Void> get(RemoteMemory remote, RegisteredSlice local) {
        return new OpMono<>(this, op -> {
            checkRma(local, remote, Operation.GET);
            op.kind = OpKind.GET;
            op.local = local;
            op.remote = remote;
        }, null);
    }

    @Override
    public Mono<Void> add(RemoteMemory remote, long delta) {
        return atomic(AtomicOp.ADD, 8, remote, delta, 0);
    }

    @Override
    public Mono<Long> fetchAdd(RemoteMemory remote, long delta) {
        return atomic(AtomicOp.FETCH_ADD, 8, remote, delta, 0);
    }

    @Override
    public Mono<Long> compareAndSwap(RemoteMemory remote, long expected, long desired) {
        return atomic(AtomicOp.COMPARE_SWAP, 8, remote, desired, expected);
    }

    @Override
    public Mono<Long> swap(RemoteMemory remote, long value) {
        return atomic(AtomicOp.SWAP, 8, remote, value, 0);
    }

    @Override
    public Mono<Long> fetchAdd32(RemoteMemory remote, int delta) {
        return atomic(AtomicOp.FETCH_ADD, 4, remote, delta, 0);
    }

    @Override
    public Mono<Long> compareAndSwap32(RemoteMemory remote, int expected, int desired) {
        return atomic(AtomicOp.COMPARE_SWAP, 4, remote, desired, expected);
    }

    @Override
    public Mono<Long> swap32(RemoteMemory remote, int value) {
        return atomic(AtomicOp.SWAP, 4, remote, value, 0);
    }

    private <T> Mono<T> atomic(AtomicOp a, int width, RemoteMemory remote, long operand, long compare) {
        return new OpMono<>(this, op -> {
            OpChecks.atomic(a, width, remote, caps);
            op.kind = OpKind.ATOMIC;
            op.atomic = a;
            op.width = width;
            op.remote = remote;
            op.operand = operand;
            op.compare = compare;
        }, null);
    }

    @Override
    public Mono<Void> flush() {
        return new OpMono<>(this, op -> op.kind = OpKind.FLUSH, null);
    }

    @Override
    public Mono<Void> fence() {
        return new OpMono<>(this, op -> op.kind = OpKind.FENCE, null);
    }

    @Override
    public Grant grant(RegisteredSlice window, Access... rights) {
        if (closed) {
            throw new ResourceClosedException("endpoint is closed");
        }
        Grant g = MEMORY.grant(memory, window, Access.setOf(rights), wire);
        if (closed) { // closed meanwhile: its scope was revoked before this grant existed
            g.close();
            throw new ResourceClosedException("endpoint is closed");
        }
        return g;
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    @Override
    public MemoryDomain memory() {
        return memory;
    }

    @Override
    public String remoteAddress() {
        return wire.remoteAddress();
    }

    @Override
    public Mono<EndpointStats> stats() {
        return Mono.<EndpointStats>create(sink -> {
            try {
                loop.execute(() -> sink.success(snapshot()));
            } catch (RuntimeException e) {
                sink.error(new ResourceClosedException("transport is closed", e));
            }
        });
    }

    private EndpointStats snapshot() {
        return new EndpointStats(ledger.window(), sendsInFlight, maxSendsInFlight, ledger.granted(),
                ledger.received(), ledger.sentMessages(), ledger.used(), (int) ledger.outstanding(),
                (int) ledger.maxOutstanding(), pending.size(), retries, creditStalls, batchesSent);
    }

    @Override
    public Mono<Void> onClose() {
        return closedSink.asMono().then();
    }

    @Override
    public Mono<CloseReason> closeReason() {
        return closedSink.asMono();
    }

    @Override
    public boolean isDisposed() {
        return closed;
    }

    @Override
    public void dispose() {
        if (closed) {
            return;
        }
        try {
            loop.execute(() -> close(new ResourceClosedException("endpoint was closed"), true,
                    CloseReason.Kind.LOCAL));
        } catch (RuntimeException e) {
            // the loop is already gone (transport disposed): it closed this endpoint on the way out
        }
    }

    @Override
    public Mono<Void> closeGracefully(Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            return Mono.error(new InvalidRequestException("timeout must not be negative, got " + timeout));
        }
        return Mono.defer(() -> {
            if (!closed) {
                draining = true; // refuses new subscriptions from now on, whichever thread makes them
                try {
                    loop.execute(() -> startDraining(timeout));
                } catch (RuntimeException e) {
                    // the loop is gone: the transport closed this endpoint already
                }
            }
            return onClose();
        });
    }

    /** Whether new operations are refused because a graceful close is under way (any thread). */
    boolean isDraining() {
        return draining || closed;
    }

    /** The error a subscription made after a graceful close began gets. */
    TransportException refusedWhileClosing() {
        TransportException cause = closeCause;
        return cause != null ? cause : new ResourceClosedException("endpoint is closing: it takes no new operations");
    }

    void streamStarted() {
        activeStreams.incrementAndGet();
    }

    void streamEnded() {
        activeStreams.decrementAndGet();
    }

    /** Progress thread: the graceful close's clock starts (the earliest deadline wins if asked twice). */
    private void startDraining(Duration timeout) {
        if (closed) {
            return;
        }
        long deadline = loop.coarseNanos() + Math.min(timeout.toNanos(), Long.MAX_VALUE / 4);
        if (drainDeadline == 0 || deadline - drainDeadline < 0) {
            drainDeadline = deadline == 0 ? 1 : deadline;
        }
        checkDrained();
    }

    /** Progress thread: closes a draining endpoint once its operations are done, or when its time is up. */
    private void checkDrained() {
        if (drainDeadline == 0 || closed) {
            return;
        }
        boolean done = pending.isEmpty() && inFlight == 0 && controlInFlight == 0 && activeStreams.get() == 0
                && (int) QUEUED.getVolatile(this) == 0;
        if (done) {
            close(new ResourceClosedException("endpoint was closed"), true, CloseReason.Kind.LOCAL);
        } else if (loop.coarseNanos() - drainDeadline > 0) {
            close(new ResourceClosedException("endpoint was closed before its operations finished: the graceful "
                    + "close timed out"), true, CloseReason.Kind.LOCAL);
        }
    }

    void checkSendBuffer(Buffer buffer) {
        OpChecks.sendBuffer(buffer, memory, caps);
    }

    void checkRma(RegisteredSlice local, RemoteMemory remote, Operation op) {
        OpChecks.rma(local, remote, op, memory, caps);
    }

    /**
     * An op's start time, read only when someone consumes its latency (a bound meter registry or an observer):
     * otherwise {@link #UNTIMED}, sparing the two clock reads per op.
     */
    private long startStamp() {
        return observer != null || metrics.timesOperations() ? System.nanoTime() : UNTIMED;
    }

    /** Builds a reusable op for a streaming send. */
    Op newOp() {
        return new Op(this);
    }

    /** Hands {@code op} to the progress loop; fails it at once when the loop is gone. */
    void submit(Op op) {
        op.startNanos = startStamp();
        if (loop.inLoop() && (int) QUEUED.getVolatile(this) == 0) {
            // Issued from a signal on this loop (e.g. a reply sent from receive()): post now, not a cycle later.
            // Only when nothing of ours still waits in the loop's task queue: a stream that emitted its first
            // items from the subscriber's thread and the rest from completions on this loop would otherwise let
            // the later items overtake the earlier ones.
            enqueue(op);
            return;
        }
        QUEUED.getAndAdd(this, 1);
        try {
            loop.execute(op);
        } catch (RuntimeException e) {
            QUEUED.getAndAdd(this, -1);
            op.releaseResources();
            op.sink.opFailed(op, new ResourceClosedException("transport is closed"));
        }
    }

    // =====================================================================================================
    // Progress thread from here on.
    // =====================================================================================================

    /** An op handed over through {@link ProgressLoop#execute} reaches the loop. */
    void dequeued(Op op) {
        QUEUED.getAndAdd(this, -1);
        try {
            enqueue(op);
        } catch (Throwable e) {
            fault(e); // a wire that threw while posting it: the op is pending or failed, and the endpoint ends
        }
    }

    void enqueue(Op op) {
        if (closed) {
            fail(op, closeCause);
            return;
        }
        if (!op.pin()) {
            fail(op, new InvalidMemoryException("memory region was closed before the operation was posted"));
            return;
        }
        pending.addLast(op);
        metrics.pendingDelta(1);
        if (!inWirePoll) {
            drain();
        } // else poll() drains once the wire's events are handled: what their signals sent meanwhile goes together
    }

    @Override
    public int poll() {
        int work;
        try {
            // Completions that each ask a streaming send for its next item, or messages whose subscriber answers
            // each: the operations they submit queue up while the wire's events are delivered, and go out after,
            // where several small sends become one coalesced frame instead of a frame each.
            inWirePoll = true;
            try {
                work = wire.poll(this);
            } finally {
                inWirePoll = false;
            }
            if (!closed) {
                work += drain();
                sendOwedCredits();
                checkDrained();
            }
        } catch (Throwable e) {
            // A wire that throws (a closed arena, a full heap, a bug) or a subscriber's handler that does (an Error
            // Reactor lets through, such as a class that could not be loaded) must end this connection with a typed
            // error, never leave it wedged with every signal pending, nor reach the loop that serves the others.
            fault(e);
            return 1;
        }
        return work;
    }

    /**
     * Ends this endpoint because {@code e} was thrown on its loop while serving it: every pending signal terminates
     * with a {@link ConnectionLostException} caused by {@code e}, the peer learns at once. Never throws.
     */
    void fault(Throwable e) {
        if (closed) {
            return;
        }
        String what;
        try {
            what = String.valueOf(e);
        } catch (Throwable t) {
            what = e.getClass().getName(); // a throwable whose message cannot be made (a class that fails to load)
        }
        try {
            close(new ConnectionLostException("the connection to " + wire.remoteAddress() + " failed on its progress "
                    + "loop: " + what, e), false, CloseReason.Kind.FAILURE);
            log.warn("endpoint to {} failed on its progress loop; closed it", wire.remoteAddress(), e);
        } catch (Throwable t) {
            // Out of what even closing needs (heap): the loop goes on, and the next poll of this endpoint tries again.
        }
    }

    /** Posts pending ops in FIFO order until one must wait; returns how many left the FIFO. */
    private int drain() {
        int work = 0;
        Op op;
        while ((op = pending.peekFirst()) != null) {
            if (op.isCancelled()) {
                removeHead();
                finish(op, false, 0, null);
                work++;
                continue;
            }
            int rc;
            try {
                switch (op.kind) {
                    case SEND -> {
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
                        int batched = inFlight > 0 && maxBatchBytes > 0 && ledger.window() > 1 ? postBatch() : -1;
                        if (batched == Wire.NO_RESOURCE) {
                            return work;
                        }
                        if (batched >= 0) {
                            work++;
                            continue;
                        }
                        long grant = ledger.piggybackGrant();
                        rc = wire.send(ControlWord.encode(ControlWord.DATA, grant), op);
                        if (rc == Wire.NO_RESOURCE) {
                            noResource();
                            return work;
                        }
                        ledger.announced(grant);
                        if (stallStart != 0) {
                            metrics.creditStall(System.nanoTime() - stallStart);
                            stallStart = 0;
                        }
                        ledger.sent(1);
                        metrics.bytesSent(op.buffer.length());
                    }
                    case PUT, GET, ATOMIC -> {
                        if (inFlight >= sendDepth) {
                            return work;
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
        ledger.announced(grant);
        if (stallStart != 0) {
            metrics.creditStall(System.nanoTime() - stallStart);
            stallStart = 0;
        }
        for (int i = 0; i < n; i++) {
            Op m = pending.pollFirst();
            metrics.pendingDelta(-1);
            m.posted = true;
            metrics.posted(OpKind.SEND);
            metrics.bytesSent(m.buffer.length());
        }
        ledger.sent(n);
        batchesSent++;
        if (rc == Wire.DONE) {
            completeCarrier(carrier, null);
        } else {
            inFlight++;
            sendsInFlight += n;
            if (sendsInFlight > maxSendsInFlight) {
                maxSendsInFlight = sendsInFlight;
            }
        }
        return rc;
    }

    private void completeCarrier(Op carrier, Throwable error) {
        for (int i = 0; i < carrier.memberCount; i++) {
            Op m = carrier.members[i];
            carrier.members[i] = null;
            finish(m, true, 0, error);
        }
        carriers.recycle(carrier);
    }

    private void removeHead() {
        pending.pollFirst();
        metrics.pendingDelta(-1);
    }

    private void noResource() {
        retries++;
        metrics.retry();
    }

    /** Grants the credits owed to the peer in a standalone word when no data message can carry them now. */
    private void sendOwedCredits() {
        if (controlInFlight > 0 || closed) {
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
            broken(e);
        }
    }

    // ---- WireEvents ----

    @Override
    public void completed(Op op, long value) {
        retire(op);
        if (op.memberCount > 0) {
            completeCarrier(op, null);
        } else {
            finish(op, true, value, null);
        }
    }

    @Override
    public void failed(Op op, TransportException error) {
        retire(op);
        if (op.memberCount > 0) {
            completeCarrier(op, error);
        } else {
            finish(op, true, 0, error);
        }
    }

    private void retire(Op op) {
        inFlight--;
        if (op.kind == OpKind.SEND) {
            sendsInFlight -= Math.max(1, op.memberCount);
        }
    }

    @Override
    public void controlCompleted() {
        controlInFlight--;
    }

    @Override
    public void received(long word, Buffer payload) {
        try {
            CreditGate.checkWord(word);
        } catch (CreditProtocolException e) {
            if (payload != null) {
                payload.release();
            }
            broken(e);
            return;
        }
        ledger.peerGranted(ControlWord.credits(word));
        int type = ControlWord.type(word);
        switch (type) {
            case ControlWord.DATA, ControlWord.BATCH -> {
                if (closed && !peerClosed) {
                    payload.release();
                    return;
                }
                int n;
                try {
                    n = gate.take(type, payload.capacitySegment(), payload.length());
                } catch (CreditProtocolException e) {
                    payload.release();
                    broken(e);
                    return;
                }
                if (type == ControlWord.DATA) {
                    metrics.bytesReceived(payload.length());
                    undelivered.addLast(payload);
                } else {
                    metrics.bytesReceived(payload.length() - (long) n * BatchFraming.RECORD_HEADER);
                    BatchFraming.unpack(payload.capacitySegment(), payload.length(), unpacker);
                    payload.release();
                }
                serviceReceiver();
            }
            case ControlWord.CLOSE -> peerClosed();
            default -> {
                if (payload != null) {
                    payload.release();
                }
            }
        }
    }

    @Override
    public void broken(TransportException cause) {
        close(cause, false, CloseReason.Kind.FAILURE);
    }

    private void peerClosed() {
        if (closed) {
            return;
        }
        peerClosed = true;
        close(new ConnectionLostException("peer closed the endpoint"), false, CloseReason.Kind.PEER);
    }

    // ---- receive side ----

    private void unpackRecord(MemorySegment frame, long offset, int length) {
        Buffer b = memory.allocate(length);
        MemorySegment.copy(frame, offset, b.capacitySegment(), 0, length);
        undelivered.addLast(b);
    }

    /**
     * The receiver cancelled. While the endpoint is open, messages already credited stay for the next subscriber;
     * once it is closed there will be none worth holding them for.
     */
    private void detachCancelled() {
        receiver = null;
        if (closed) {
            releaseUndelivered();
        }
    }

    private void releaseUndelivered() {
        Buffer b;
        while ((b = undelivered.pollFirst()) != null) {
            b.release();
        }
    }

    /** A receiver subscribed (progress thread). */
    void attach(ReceiveFlux.Receiver r) {
        if (receiver != null) {
            r.error(new InvalidRequestException("receive() already has a subscriber"));
            return;
        }
        if (closed && !peerClosed && undelivered.isEmpty()) {
            if (closeCause instanceof ResourceClosedException) {
                r.complete();
            } else {
                r.error(closeCause);
            }
            return;
        }
        receiver = r;
        serviceReceiver();
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
            r.demand--;
            r.next(undelivered.pollFirst());
            if (r.isCancelled()) {
                detachCancelled();
                return;
            }
        }
        if (closed) {
            if (undelivered.isEmpty()) {
                receiver = null;
                if (peerClosed || closeCause instanceof ResourceClosedException) {
                    r.complete();
                } else {
                    r.error(closeCause);
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

    // ---- completion and close ----

    private void fail(Op op, Throwable error) {
        finish(op, op.posted, 0, error);
    }

    private void finish(Op op, boolean wasPosted, long value, Throwable error) {
        long bytes = op.bytes();
        op.releaseResources();
        boolean cancelled = op.isCancelled();
        long nanos = op.startNanos == UNTIMED ? -1 : System.nanoTime() - op.startNanos;
        metrics.finished(op.kind, wasPosted, error != null ? 1 : cancelled ? 2 : 0, nanos);
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
            fault(t); // a subscriber's handler threw on the loop: the endpoint ends, the other signals still go out
        }
    }

    /**
     * Closes the endpoint once: tells the peer when {@code notifyPeer}, fails every op that has not completed, and
     * terminates the receiver. Progress thread only. Never throws, and never stops half-way, which would leave the
     * connection's socket open and its signals pending for good: a step that throws (a subscriber's handler, a
     * wire's bug) is run again, each attempt having used up what it threw on (an op failed, an event handed over, a
     * message delivered), and after too many the next step runs. The first failure is logged at the end.
     */
    void close(TransportException cause, boolean notifyPeer, CloseReason.Kind kind) {
        if (closed) {
            return;
        }
        closed = true;
        closeCause = cause;
        Throwable failure = null;
        int retries = pending.size() + inFlight + undelivered.size() + 8;
        for (int step = 0; step < 8; ) {
            try {
                closeStep(step, cause, notifyPeer, kind);
                step++;
            } catch (Throwable t) {
                failure = failure != null ? failure : t;
                step += --retries < 0 ? 1 : 0;
            }
        }
        if (failure != null) {
            try {
                log.warn("closing the endpoint to {} went on past a failure", wire.remoteAddress(), failure);
            } catch (Throwable t) {
                // nothing to report it with
            }
        }
    }

    /** Step {@code step} of {@link #close}; an int switch, which needs no class of its own on the way out. */
    private void closeStep(int step, TransportException cause, boolean notifyPeer, CloseReason.Kind kind) {
        switch (step) {
            case 0 -> MEMORY.revokeScope(memory, wire); // nothing granted to it is reachable, whatever is in flight
            case 1 -> {
                if (notifyPeer) {
                    try {
                        wire.send(ControlWord.encode(ControlWord.CLOSE, 0), null);
                    } catch (TransportException e) {
                        log.debug("could not tell the peer about close", e);
                    }
                }
            }
            case 2 -> {
                for (Op op; (op = pending.pollFirst()) != null; ) {
                    metrics.pendingDelta(-1);
                    fail(op, cause);
                }
            }
            case 3 -> wire.close();
            case 4 -> wire.poll(this); // ops still posted come back, completed or flushed; their buffers are released
            case 5 -> endReceiver();
            case 6 -> {
                loop.deregister(this);
                metrics.endpointClosed(kind.ordinal());
            }
            default -> {
                closedSink.tryEmitValue(new CloseReason(kind, cause)); // again after a subscriber threw: a no-op
                if (onClosed != null) {
                    onClosed.run();
                }
            }
        }
    }

    /** The receiver of a closed endpoint gets what it may still take, then its end; one that throws, nothing more. */
    private void endReceiver() {
        try {
            if (!peerClosed || receiver == null || receiver.isCancelled()) {
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

    /** Used by transports closing all endpoints: closes on the progress loop, or right here when it is gone. */
    public void closeFromTransport(TransportException cause) {
        if (closed) {
            return;
        }
        if (loop.inLoop() || !loop.isRunning()) {
            close(cause, true, CloseReason.Kind.LOCAL);
        } else {
            try {
                loop.execute(() -> close(cause, true, CloseReason.Kind.LOCAL));
            } catch (RuntimeException e) {
                close(cause, true, CloseReason.Kind.LOCAL);
            }
        }
    }

    boolean isClosed() {
        return closed;
    }

    TransportException closeCause() {
        return closeCause;
    }

    @Override
    public String toString() {
        return "Endpoint[" + caps.transport() + " -> " + wire.remoteAddress() + (closed ? ", closed" : "") + "]";
    }
}
