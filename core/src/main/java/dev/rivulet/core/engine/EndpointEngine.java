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
import dev.rivulet.core.MessageEncoder;
import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.Operation;
import dev.rivulet.core.OperationObserver;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.MessageTooLargeException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteRead;
import dev.rivulet.core.memory.RemoteWrite;
import dev.rivulet.core.metrics.TransportMetrics;
import dev.rivulet.core.loop.Pollable;
import dev.rivulet.core.loop.ProgressLoop;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;

/**
 * The transport-neutral half of every endpoint: the reactive API, its lifecycle (graceful and immediate close,
 * faults on the loop) and the hand-off of operations to the progress loop. A backend supplies only a {@link Wire}.
 * What happens on the loop has a class per direction: {@link Outbound} posts operations from the pending FIFO and
 * completes them, {@link Inbound} delivers arrivals and turns demand into credits; both keep their credits in the
 * connection's {@link CreditLedger}.
 *
 * <p>Path of one {@code send}: the subscriber's thread builds an {@link Op} and hands it to the progress loop
 * ({@link ProgressLoop#execute}); on the loop the op joins the pending FIFO ({@link #enqueue}); {@link
 * Outbound#drain()} posts it to the wire once a receiver credit and a send slot are free, in FIFO order, parking it
 * again on NO_RESOURCE; the wire's completion comes back through {@link WireEvents#completed} during {@link #poll()},
 * which releases the buffer, frees the slot and signals the subscriber.
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
    private final Capabilities caps;
    private final int sendPrefetch;
    private final Runnable onClosed;
    private final Sinks.One<CloseReason> closedSink = Sinks.one();

    // ---- progress-thread state ----
    private final CreditLedger ledger;
    private final Outbound outbound;
    private final Inbound inbound;
    private final ClaimedStreams claimedStreams = new ClaimedStreams(this);
    private boolean peerClosed;
    /** Inside {@code wire.poll}: {@link #enqueue} leaves draining to {@link #poll}. */
    private boolean inWirePoll;
    private TransportException closeCause;
    private volatile boolean closed;
    /** Set by {@link #closeGracefully}: new operations are refused, the endpoint closes once the rest is done. */
    private volatile boolean draining;
    private long drainDeadline;
    /** Streaming sends, puts and gets subscribed and not yet terminated (a graceful close waits for them). */
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
                          OperationObserver observer, int sendPrefetch, Duration receiveLinger, Runnable onClosed) {
        this.wire = wire;
        this.loop = loop;
        this.memory = memory;
        this.metrics = metrics;
        this.caps = wire.capabilities();
        this.sendPrefetch = Math.min(sendPrefetch, caps.sendQueueDepth());
        this.onClosed = onClosed;
        this.ledger = new CreditLedger(caps.receiveQueueDepth());
        this.outbound = new Outbound(this, wire, memory, metrics, observer, ledger);
        this.inbound = new Inbound(this, wire, memory, metrics, ledger, receiveLinger.toNanos());
        wire.attach(ledger.gate());
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

    ClaimedStreams claimedStreams() {
        return claimedStreams;
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
    public <T> Mono<Void> send(Publisher<T> items, int maxMessageSize, MessageEncoder<? super T> encoder) {
        if (items == null || encoder == null) {
            return Mono.error(new InvalidRequestException("publisher and encoder must not be null"));
        }
        if (maxMessageSize < 0) {
            return Mono.error(new InvalidRequestException("negative maxMessageSize " + maxMessageSize));
        }
        if (maxMessageSize > caps.maxMessageSize()) {
            return Mono.error(new MessageTooLargeException("messages of up to " + maxMessageSize + " bytes exceed the "
                    + "maximum of " + caps.maxMessageSize() + " on " + caps.transport()));
        }
        // Enough items to fill the peer's credits twice over, so a frame can go while the next one fills.
        int prefetch = 2 * Math.max(sendPrefetch, caps.receiveQueueDepth());
        return new StreamingOps.StreamMono<T, ClaimedSends<T>>(this, items,
                actual -> new ClaimedSends<>(this, actual, maxMessageSize, encoder, prefetch));
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
    public Mono<Void> get(Publisher<RemoteRead> reads) {
        if (reads == null) {
            return Mono.error(new InvalidRequestException("publisher is null"));
        }
        return new StreamingOps.StreamMono<>(this, reads, actual -> new StreamingOps.Gets(this, actual));
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
        return outbound.stats(inbound.discarded());
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
        boolean done = outbound.isIdle() && activeStreams.get() == 0 && (int) QUEUED.getVolatile(this) == 0;
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

    /** Builds a reusable op for a streaming send. */
    Op newOp() {
        return new Op(this);
    }

    /** Hands {@code op} to the progress loop; fails it at once when the loop is gone. */
    void submit(Op op) {
        op.startNanos = outbound.startStamp();
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
            rejected(op);
        }
    }

    /** {@code op} was handed to the loop but will never run there: the loop is closed. */
    void rejected(Op op) {
        QUEUED.getAndAdd(this, -1);
        op.releaseResources();
        op.sink.opFailed(op, new ResourceClosedException("transport is closed"));
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
            outbound.fail(op, closeCause);
            return;
        }
        if (outbound.add(op) && !inWirePoll) {
            outbound.drain();
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
                inbound.checkLinger(loop.coarseNanos());
                work += claimedStreams.pull();
                work += outbound.drain();
                outbound.sendOwedCredits();
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

    // ---- WireEvents ----

    @Override
    public void completed(Op op, long value) {
        outbound.completed(op, value);
    }

    @Override
    public void failed(Op op, TransportException error) {
        outbound.failed(op, error);
    }

    @Override
    public void controlCompleted() {
        outbound.controlCompleted();
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
            case ControlWord.DATA, ControlWord.BATCH -> inbound.arrived(type, payload);
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

    // ---- completion and close ----

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
        int retries = outbound.unfinished() + inbound.undelivered() + 8;
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
                outbound.failPending(cause);
                claimedStreams.closeAll(cause);
            }
            case 3 -> wire.close();
            case 4 -> wire.poll(this); // ops still posted come back, completed or flushed; their buffers are released
            case 5 -> inbound.endReceiver();
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

    /** Whether the peer closed this endpoint: what had arrived before its close is still delivered. */
    boolean isPeerClosed() {
        return peerClosed;
    }

    /** The receive side, for {@code receive()}'s subscriptions. */
    Inbound inbound() {
        return inbound;
    }

    TransportException closeCause() {
        return closeCause;
    }

    @Override
    public String toString() {
        return "Endpoint[" + caps.transport() + " -> " + wire.remoteAddress() + (closed ? ", closed" : "") + "]";
    }
}
