package dev.rivulet.core.engine;

import dev.rivulet.core.MessageEncoder;
import dev.rivulet.core.credit.BatchFraming;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import org.jctools.queues.atomic.SpscAtomicArrayQueue;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Exceptions;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.Objects;

/**
 * {@code send(Publisher<T>, maxMessageSize, encoder)}: items wait in a single-producer queue, and when the stream's
 * place reaches the head of the pending FIFO ({@link Op#claims}) {@link Outbound} has them encoded straight into the
 * frame it posts ({@link #encodeFrame}), as many as the peer's credits and the frame allow. Nothing is taken per
 * message but the queue slot: the frame buffer, the op that posts it and the {@link FrameClaim} the encoder writes
 * through are per frame or per stream.
 *
 * <p>Demand is counted on the progress thread only: the first request and every later one are made there, in
 * batches of at least a quarter of the prefetch, as completed frames free room; there is no atomic update per item.
 * An item emitted on the progress thread (a synchronous source answering one of those requests) only joins the
 * queue; one emitted elsewhere also wakes the loop if it sleeps. The endpoint's {@link ClaimedStreams} turn a
 * stream with items into a place in the FIFO on each poll, so a burst of items costs one place, not one op each.
 *
 * <p>Termination as {@code send(Publisher<Buffer>)}: upstream completion (or error) ends the {@code Mono} once every
 * item received before it was sent and completed; an encoder that throws, or a frame that fails, cancels upstream,
 * drops the items not yet encoded and ends it with that error once the frames in flight are accounted for;
 * cancellation stops requesting and drops what is not encoded, and the frames posted already finish.
 *
 * @param <T> what upstream emits
 */
final class ClaimedSends<T> implements CoreSubscriber<T>, Subscription, Op.Sink {

    private final EndpointEngine engine;
    private final CoreSubscriber<? super Void> actual;
    private final MessageEncoder<? super T> encoder;
    private final int maxMessageSize;
    private final FrameClaim claim;
    private final SpscAtomicArrayQueue<T> items;
    private final int prefetch;
    private final int replenish;
    /** This stream's place in the pending FIFO, queued while {@link #headQueued}. */
    private final Op head;
    private final ArrayDeque<Op> freeFrames = new ArrayDeque<>();
    private Subscription upstream;

    // ---- any thread ----
    private volatile boolean upstreamDone;
    private volatile @Nullable Throwable upstreamError;
    private volatile boolean cancelled;
    /** Upstream emitted more than it was asked for (§1.1): the stream fails on the loop. */
    private volatile boolean overflowed;

    // ---- progress thread ----
    private long requested;
    /** Items settled: sent and completed, or dropped. */
    private long settled;
    private int framesInFlight;
    private boolean headQueued;
    /** A frame encoded for a send the wire refused for now (NO_RESOURCE): it goes first next time. */
    private @Nullable Op parked;
    private @Nullable Throwable failure;
    private boolean terminated;

    ClaimedSends(EndpointEngine engine, CoreSubscriber<? super Void> actual, int maxMessageSize,
                 MessageEncoder<? super T> encoder, int prefetch) {
        this.engine = engine;
        this.actual = actual;
        this.encoder = encoder;
        this.maxMessageSize = maxMessageSize;
        this.claim = new FrameClaim(maxMessageSize);
        this.prefetch = prefetch;
        this.replenish = Math.max(1, prefetch >> 2);
        this.items = new SpscAtomicArrayQueue<>(prefetch);
        this.head = engine.newOp();
        head.kind = OpKind.SEND;
        head.claims = this;
        head.sink = this;
        head.context = actual.currentContext();
    }

    @Override
    public Context currentContext() {
        return actual.currentContext();
    }

    // ---- upstream, on the emitting thread ----

    @Override
    public void onSubscribe(Subscription s) {
        if (Operators.validate(upstream, s)) {
            upstream = s;
            if (cancelled) {
                s.cancel(); // cancelled before upstream came: the stream still joins, only to end at once
            }
            engine.claimedStreams().start(this);
        }
    }

    @Override
    public void onNext(T item) {
        Objects.requireNonNull(item, "§2.13: onNext(null)");
        if (cancelled || upstreamDone) {
            Operators.onDiscard(item, actual.currentContext());
            return;
        }
        if (!items.offer(item)) {
            Operators.onDiscard(item, actual.currentContext());
            overflowed = true;
            upstream.cancel();
        }
        if (!engine.loop().inLoop()) {
            // The loop publishes that it sleeps, then polls once more; this side publishes the item, then reads
            // whether it sleeps. Without the fence both could read before the other's write and the item would
            // wait for the next wake-up. The loop's own items need neither: it polls the queue before it sleeps.
            VarHandle.fullFence();
            engine.loop().wake();
        }
    }

    @Override
    public void onError(Throwable t) {
        Objects.requireNonNull(t, "§2.13: onError(null)");
        if (upstreamDone) {
            Operators.onErrorDropped(t, actual.currentContext());
            return;
        }
        upstreamError = t;
        upstreamDone = true;
        engine.loop().wake();
    }

    @Override
    public void onComplete() {
        upstreamDone = true;
        engine.loop().wake();
    }

    // ---- the downstream Mono's subscription, any thread ----

    @Override
    public void request(long n) {
        // Mono<Void>: nothing to emit, demand is irrelevant.
    }

    @Override
    public void cancel() {
        cancelled = true;
        head.cancel(); // leaves the FIFO on the next drain, even while the stream waits for credits
        Subscription s = upstream;
        if (s != null) {
            s.cancel();
        }
        engine.loop().wake();
    }

    // ---- progress thread ----

    /** The first request: made on the loop, so demand is only ever counted there. */
    void started() {
        if (!cancelled) {
            requested = prefetch;
            upstream.request(prefetch);
        }
    }

    /** Whether items wait to be encoded, or a frame to be posted again. */
    boolean hasItems() {
        return parked != null || !items.isEmpty();
    }

    /**
     * Called by {@link ClaimedStreams} on every poll: queues this stream's place when items arrived, and ends the
     * stream once it is done. Returns whether it found work.
     */
    boolean pull() {
        if (stopped()) {
            dropQueued();
        } else if (!headQueued && hasItems()) {
            headQueued = true;
            engine.enqueue(head);
            return true;
        }
        return tryTerminate();
    }

    /** Its place left the FIFO: drained, cancelled, or failed with {@code error} (the endpoint closes). */
    void headRemoved(@Nullable Throwable error) {
        headQueued = false;
        if (error != null) {
            fail(error);
        }
        tryTerminate();
    }

    /**
     * The next frame: the parked one, else as many queued items as fit encoded into a pooled buffer, each message a
     * record of a {@code BATCH} frame where the wire coalesces and messages are small ({@code maxMessageSize} at most
     * the coalescing limit, and a record of it fits {@code maxBatchBytes}), else one message as it is. At most
     * {@code credits} messages. Null when nothing is queued, when the pool has no buffer right now, or when the first
     * item's encoder failed.
     */
    @Nullable Op encodeFrame(int maxBatchBytes, long credits, MemoryDomain memory) {
        Op frame = parked;
        if (frame != null) {
            parked = null;
            return frame;
        }
        if (stopped() || items.isEmpty()) {
            return null;
        }
        // Larger messages go one by one, as with send(Publisher<Buffer>): the receiver copies each record out of a
        // frame, and beyond this size that copy costs more than the send a frame saves.
        long record = BatchFraming.recordSize(maxMessageSize);
        boolean coalesce = maxMessageSize <= Carriers.COALESCE_LIMIT && maxBatchBytes >= record;
        int size = coalesce ? (int) Math.min(maxBatchBytes, Math.max(1, Math.min(credits, items.size())) * record)
                : maxMessageSize;
        Buffer buffer = memory.buffers().tryAllocate(size);
        if (buffer == null) {
            return null;
        }
        MemorySegment segment = buffer.capacitySegment();
        int records = 0;
        long end = 0;
        if (coalesce) {
            long room = size - record;
            while (records < credits && end <= room) {
                T item = items.relaxedPoll();
                if (item == null) {
                    break;
                }
                int length = encode(item, segment, end + BatchFraming.RECORD_HEADER);
                if (length < 0) {
                    break;
                }
                end = BatchFraming.putHeader(segment, end, length);
                records++;
            }
        } else {
            int length = encode(items.relaxedPoll(), segment, 0);
            if (length >= 0) {
                end = length;
                records = 1;
            }
        }
        if (records == 0) {
            buffer.release();
            return null;
        }
        frame = freeFrames.pollFirst();
        if (frame == null) {
            frame = engine.newOp();
        }
        framesInFlight++; // from here until it completes or fails: a parked frame counts too
        frame.kind = OpKind.SEND;
        frame.buffer = buffer.length((int) end);
        frame.batchRecords = coalesce ? records : 0;
        frame.sink = this;
        frame.context = actual.currentContext();
        return frame;
    }

    /** Encodes one item at {@code offset}; returns its length, or -1 when the encoder failed (the stream fails). */
    private int encode(T item, MemorySegment frame, long offset) {
        int length;
        claim.open(frame, offset);
        try {
            length = encoder.encode(item, claim);
        } catch (Throwable t) {
            Exceptions.throwIfJvmFatal(t);
            settled++;
            fail(Operators.onOperatorError(upstream, t, item, actual.currentContext()));
            return -1;
        } finally {
            claim.close();
        }
        if (length < 0 || length > maxMessageSize) {
            settled++;
            fail(new InvalidRequestException("the encoder returned a length of " + length + " for a claim of "
                    + maxMessageSize + " bytes"));
            return -1;
        }
        return length;
    }

    /** The wire refused {@code frame} for now: it is the next one posted. */
    void park(Op frame) {
        parked = frame;
    }

    @Override
    public void opCompleted(Op frame, long value) {
        frameDone(frame);
        if (!stopped() && !upstreamDone && requested - settled <= prefetch - replenish) {
            long n = prefetch - (requested - settled);
            requested += n;
            upstream.request(n);
        }
        tryTerminate();
    }

    @Override
    public void opFailed(Op frame, Throwable error) {
        frameDone(frame);
        fail(error);
        tryTerminate();
    }

    private void frameDone(Op frame) {
        framesInFlight--;
        settled += Math.max(1, frame.batchRecords);
        frame.recycle();
        freeFrames.addFirst(frame);
    }

    /** The endpoint closed: nothing more goes out. */
    void closed(Throwable cause) {
        fail(cause);
        tryTerminate();
    }

    private boolean stopped() {
        return cancelled || failure != null || overflowed;
    }

    private void fail(Throwable error) {
        if (failure == null) {
            failure = error;
            head.cancel();
            upstream.cancel();
        }
        dropQueued();
    }

    private void dropQueued() {
        Context ctx = actual.currentContext();
        for (T item; (item = items.relaxedPoll()) != null; ) {
            settled++;
            Operators.onDiscard(item, ctx);
        }
        Op frame = parked;
        if (frame != null) {
            parked = null;
            framesInFlight--;
            settled += Math.max(1, frame.batchRecords);
            frame.releaseResources();
            frame.recycle();
            freeFrames.addFirst(frame);
        }
    }

    /** Signals the end once upstream is done (or the stream stopped) and nothing is queued or in flight. */
    private boolean tryTerminate() {
        if (terminated || !(upstreamDone || stopped()) || headQueued || framesInFlight > 0 || hasItems()) {
            return false;
        }
        terminated = true;
        engine.claimedStreams().ended(this);
        if (cancelled) {
            return true;
        }
        Throwable f = failure != null ? failure : upstreamError;
        if (f == null && overflowed) {
            f = Operators.onOperatorError(new IllegalStateException("upstream ignored demand"),
                    actual.currentContext());
        }
        if (f != null) {
            actual.onError(f);
        } else {
            actual.onComplete();
        }
        return true;
    }

    /** For a stream whose loop is gone before it started. */
    void refused() {
        failure = new ResourceClosedException("transport is closed");
        upstream.cancel();
        terminated = true;
        engine.streamEnded();
        actual.onError(failure);
    }
}
