package dev.rivulet.core.engine;

import dev.rivulet.core.Operation;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.RemoteWrite;
import org.jctools.queues.atomic.SpscAtomicArrayQueue;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.Function;

/**
 * {@code send(Publisher)} and {@code put(Publisher)}: local send-queue credits turned into upstream demand. It
 * requests {@code prefetch} items (at most the send queue depth), and one more each time an operation completes,
 * so the operations it holds never exceed the slots they may fill. Ops are preallocated and recycled, and no
 * {@code Mono} is subscribed per item: steady state allocates nothing per operation.
 *
 * <p>Termination: upstream completion ends the {@code Mono} once every operation has completed; the first failure
 * cancels upstream and ends it with that failure once the operations in flight are accounted for; cancelling the
 * {@code Mono} cancels upstream, and operations already posted still finish (and release their buffers) on
 * completion, because the provider may still touch their memory.
 *
 * @param <T> what upstream emits: a message buffer or a remote write
 */
abstract class StreamingOps<T> implements CoreSubscriber<T>, Subscription, Op.Sink {

    /** The cold {@code Mono} a caller holds, for this and for {@link ClaimedSends}. */
    static final class StreamMono<T, S extends CoreSubscriber<T> & Subscription> extends Mono<Void> {
        private final EndpointEngine engine;
        private final Publisher<T> source;
        private final Function<CoreSubscriber<? super Void>, S> driver;

        StreamMono(EndpointEngine engine, Publisher<T> source, Function<CoreSubscriber<? super Void>, S> driver) {
            this.engine = engine;
            this.source = source;
            this.driver = driver;
        }

        @Override
        public void subscribe(CoreSubscriber<? super Void> actual) {
            if (engine.isDraining()) {
                // Nothing was taken from upstream, so nothing is owned yet; the source is not even subscribed.
                Operators.error(actual, engine.refusedWhileClosing());
                return;
            }
            S s = driver.apply(actual);
            engine.streamStarted();
            actual.onSubscribe(s);
            source.subscribe(s);
        }
    }

    /** {@code send(Publisher<Buffer>)}: each buffer becomes a message; the op owns its reference. */
    static final class Sends extends StreamingOps<Buffer> {
        Sends(EndpointEngine engine, CoreSubscriber<? super Void> actual) {
            super(engine, actual);
        }

        @Override
        void check(Buffer buffer) {
            engine.checkSendBuffer(buffer);
        }

        @Override
        void prepare(Op op, Buffer buffer) {
            op.kind = OpKind.SEND;
            op.buffer = buffer;
        }

        @Override
        void discard(Buffer buffer) {
            buffer.release();
        }
    }

    /** {@code put(Publisher<RemoteWrite>)}: each element becomes one put; the caller keeps its memory. */
    static final class Puts extends StreamingOps<RemoteWrite> {
        Puts(EndpointEngine engine, CoreSubscriber<? super Void> actual) {
            super(engine, actual);
        }

        @Override
        void check(RemoteWrite write) {
            engine.checkRma(write.local(), write.remote(), Operation.PUT);
        }

        @Override
        void prepare(Op op, RemoteWrite write) {
            op.kind = OpKind.PUT;
            op.local = write.local();
            op.remote = write.remote();
        }

        @Override
        void discard(RemoteWrite write) {
            // nothing is owned: the caller's memory stays the caller's
        }
    }

    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<StreamingOps> OUTSTANDING =
            AtomicIntegerFieldUpdater.newUpdater(StreamingOps.class, "outstanding");
    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<StreamingOps> TERMINATED =
            AtomicIntegerFieldUpdater.newUpdater(StreamingOps.class, "terminated");

    final EndpointEngine engine;
    private final CoreSubscriber<? super Void> actual;
    private final SpscAtomicArrayQueue<Op> free;
    private final Op[] all;
    private final int prefetch;
    private Subscription upstream;
    /** Ops made so far; only the upstream's (serialised) onNext creates them. */
    private int created;
    private volatile boolean upstreamDone;
    private volatile boolean cancelled;
    private volatile Throwable failure;
    /** Items taken from upstream and not yet finished. */
    private volatile int outstanding;
    private volatile int terminated;

    StreamingOps(EndpointEngine engine, CoreSubscriber<? super Void> actual) {
        this.engine = engine;
        this.actual = actual;
        this.prefetch = engine.sendPrefetch();
        this.free = new SpscAtomicArrayQueue<>(prefetch);
        this.all = new Op[prefetch];
    }

    /** Validates an item on the emitting thread; throws the typed exception that ends the stream. */
    abstract void check(T item);

    /** Fills a recycled op for {@code item}. */
    abstract void prepare(Op op, T item);

    /** Drops an item that will not be posted (released if the stream owns it). */
    abstract void discard(T item);

    /** A recycled op, or a new one while fewer than {@code prefetch} exist (short streams stay cheap). */
    private Op takeOp() {
        Op op = free.relaxedPoll();
        if (op == null && created < prefetch) {
            op = engine.newOp();
            all[created++] = op;
        }
        return op;
    }

    @Override
    public Context currentContext() {
        return actual.currentContext();
    }

    @Override
    public void onSubscribe(Subscription s) {
        if (Operators.validate(upstream, s)) {
            upstream = s;
            if (cancelled) {
                s.cancel();
            } else {
                s.request(prefetch);
            }
        }
    }

    @Override
    public void onNext(T item) {
        Objects.requireNonNull(item, "§2.13: onNext(null)");
        if (upstreamDone || cancelled || failure != null) {
            discard(item);
            return;
        }
        try {
            check(item);
        } catch (TransportException e) {
            discard(item);
            upstream.cancel();
            failWith(e);
            return;
        }
        Op op = takeOp();
        if (op == null) {
            // Upstream sent more than requested: a §1.1 violation. Refuse rather than grow.
            discard(item);
            upstream.cancel();
            failWith(Operators.onOperatorError(new IllegalStateException("upstream ignored demand"),
                    actual.currentContext()));
            return;
        }
        op.recycle();
        prepare(op, item);
        op.sink = this;
        op.context = actual.currentContext();
        OUTSTANDING.incrementAndGet(this);
        engine.submit(op);
    }

    @Override
    public void onError(Throwable t) {
        Objects.requireNonNull(t, "§2.13: onError(null)");
        if (upstreamDone) {
            Operators.onErrorDropped(t, actual.currentContext());
            return;
        }
        upstreamDone = true;
        failWith(t);
    }

    @Override
    public void onComplete() {
        if (upstreamDone) {
            return;
        }
        upstreamDone = true;
        tryTerminate();
    }

    // ---- completions, on the progress thread ----

    @Override
    public void opCompleted(Op op, long value) {
        done(op);
        if (!upstreamDone && !cancelled && failure == null) {
            upstream.request(1);
        }
    }

    @Override
    public void opFailed(Op op, Throwable error) {
        done(op);
        if (!upstreamDone) {
            upstreamDone = true;
            upstream.cancel();
        }
        failWith(error);
    }

    private void done(Op op) {
        op.recycle();
        free.offer(op);
        if (OUTSTANDING.decrementAndGet(this) == 0) {
            tryTerminate();
        }
    }

    private void failWith(Throwable t) {
        if (failure == null) {
            failure = t;
        }
        tryTerminate();
    }

    /** Signals the end once upstream is done (or failed) and no operation is outstanding. */
    private void tryTerminate() {
        boolean end = failure != null || upstreamDone;
        if (!end || outstanding != 0 || !TERMINATED.compareAndSet(this, 0, 1)) {
            return;
        }
        engine.streamEnded();
        if (cancelled) {
            return;
        }
        Throwable f = failure;
        if (f != null) {
            actual.onError(f);
        } else {
            actual.onComplete();
        }
    }

    // ---- the downstream Mono's subscription ----

    @Override
    public void request(long n) {
        // Mono<Void>: nothing to emit, demand is irrelevant.
    }

    @Override
    public void cancel() {
        cancelled = true;
        Subscription s = upstream;
        if (s != null) {
            s.cancel();
        }
        upstreamDone = true;
        // Operations still waiting in the pending FIFO are dropped (send buffers released); posted ones finish
        // normally because the provider may still touch their memory.
        for (Op op : all) {
            if (op != null) {
                op.cancel();
            }
        }
        tryTerminate(); // with nothing outstanding no completion will do it
    }
}
