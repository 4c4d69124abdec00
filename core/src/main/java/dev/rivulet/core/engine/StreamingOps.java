package dev.rivulet.core.engine;

import dev.rivulet.core.Operation;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteRead;
import dev.rivulet.core.memory.RemoteWrite;
import org.jctools.queues.atomic.SpscAtomicArrayQueue;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

import java.util.Objects;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.function.Function;

/**
 * {@code send(Publisher)}, {@code put(Publisher)} and {@code get(Publisher)}: local send-queue credits turned into
 * upstream demand. It requests {@code prefetch} items (at most the send queue depth), and as operations complete asks
 * for as many more in batches of a quarter of the prefetch (as Reactor's {@code limitRate} does), so the operations
 * it holds never exceed the slots they may fill and upstream is not asked once per item. Ops are preallocated and
 * recycled, and no {@code Mono} is subscribed per item: steady state allocates nothing per operation.
 *
 * <p>No atomic read-modify-write per item: what is outstanding is the difference of two counters, each with a
 * single writer ({@link #taken} by the emitting thread, {@link #finished} by the progress thread), and the check for
 * the end takes a full fence only where it may be the end (see {@link #done}).
 *
 * <p>Termination: upstream completion ends the {@code Mono} once every operation has completed; the first failure
 * cancels upstream and ends it with that failure once the operations in flight are accounted for; cancelling the
 * {@code Mono} cancels upstream, and operations already posted still finish (and release their buffers) on
 * completion, because the provider may still touch their memory.
 *
 * @param <T> what upstream emits: a message buffer, a remote write or a remote read
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
        OpKind kind() {
            return OpKind.SEND;
        }

        @Override
        void prepare(Op op, Buffer buffer) {
            op.buffer = buffer;
        }

        @Override
        void discard(Buffer buffer) {
            buffer.release();
        }
    }

    /** Puts and gets: each element becomes one operation on the caller's memory, which stays the caller's. */
    abstract static class OneSided<T> extends StreamingOps<T> {
        private final OpKind kind;
        private final Operation operation;

        OneSided(EndpointEngine engine, CoreSubscriber<? super Void> actual, OpKind kind, Operation operation) {
            super(engine, actual);
            this.kind = kind;
            this.operation = operation;
        }

        abstract RegisteredSlice local(T item);

        abstract RemoteMemory remote(T item);

        @Override
        final void check(T item) {
            engine.checkRma(local(item), remote(item), operation);
        }

        @Override
        final OpKind kind() {
            return kind;
        }

        @Override
        final void prepare(Op op, T item) {
            op.local = local(item);
            op.remote = remote(item);
        }

        @Override
        final void discard(T item) {
            // nothing is owned: the caller's memory stays the caller's
        }
    }

    /** {@code put(Publisher<RemoteWrite>)}: each element becomes one put. */
    static final class Puts extends OneSided<RemoteWrite> {
        Puts(EndpointEngine engine, CoreSubscriber<? super Void> actual) {
            super(engine, actual, OpKind.PUT, Operation.PUT);
        }

        @Override
        RegisteredSlice local(RemoteWrite write) {
            return write.local();
        }

        @Override
        RemoteMemory remote(RemoteWrite write) {
            return write.remote();
        }
    }

    /** {@code get(Publisher<RemoteRead>)}: each element becomes one get. */
    static final class Gets extends OneSided<RemoteRead> {
        Gets(EndpointEngine engine, CoreSubscriber<? super Void> actual) {
            super(engine, actual, OpKind.GET, Operation.GET);
        }

        @Override
        RegisteredSlice local(RemoteRead read) {
            return read.local();
        }

        @Override
        RemoteMemory remote(RemoteRead read) {
            return read.remote();
        }
    }

    private static final VarHandle TAKEN;
    private static final VarHandle FINISHED;

    static {
        try {
            MethodHandles.Lookup lookup = MethodHandles.lookup();
            TAKEN = lookup.findVarHandle(StreamingOps.class, "taken", long.class);
            FINISHED = lookup.findVarHandle(StreamingOps.class, "finished", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @SuppressWarnings("rawtypes")
    private static final AtomicIntegerFieldUpdater<StreamingOps> TERMINATED =
            AtomicIntegerFieldUpdater.newUpdater(StreamingOps.class, "terminated");

    final EndpointEngine engine;
    private final CoreSubscriber<? super Void> actual;
    private final SpscAtomicArrayQueue<Op> free;
    private final Op[] all;
    private final int prefetch;
    private final int replenish;
    private Subscription upstream;
    /** Ops made so far; only the upstream's (serialised) onNext creates them. */
    private int created;
    private volatile boolean upstreamDone;
    private volatile boolean cancelled;
    private volatile Throwable failure;
    /** Items taken from upstream to be posted; written by the emitting thread only (§1.3 serialises it). */
    @SuppressWarnings("unused") // through TAKEN
    private long taken;
    /** Of those, the ones finished; written by the progress thread only. */
    @SuppressWarnings("unused") // through FINISHED
    private long finished;
    /** Completions not yet turned into upstream demand; progress thread only. */
    private int unrequested;
    private volatile int terminated;

    StreamingOps(EndpointEngine engine, CoreSubscriber<? super Void> actual) {
        this.engine = engine;
        this.actual = actual;
        this.prefetch = engine.sendPrefetch();
        this.replenish = Math.max(1, prefetch >> 2);
        this.free = new SpscAtomicArrayQueue<>(prefetch);
        this.all = new Op[prefetch];
    }

    /** Validates an item on the emitting thread; throws the typed exception that ends the stream. */
    abstract void check(T item);

    /** The kind of every op this stream posts. */
    abstract OpKind kind();

    /** Fills a recycled op for {@code item} (its kind, sink and context are set once, when it is made). */
    abstract void prepare(Op op, T item);

    /** Drops an item that will not be posted (released if the stream owns it). */
    abstract void discard(T item);

    /** A recycled op, or a new one while fewer than {@code prefetch} exist (short streams stay cheap). */
    private Op takeOp() {
        Op op = free.relaxedPoll();
        if (op == null && created < prefetch) {
            op = engine.newOp();
            // Set once: recycling keeps them, and a store into a long-lived object costs a card-marking barrier.
            op.kind = kind();
            op.sink = this;
            op.context = actual.currentContext();
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
        TAKEN.setRelease(this, (long) TAKEN.getOpaque(this) + 1);
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
        if (!upstreamDone && !cancelled && failure == null && ++unrequested >= replenish) {
            // Never more outstanding than prefetch: what was requested less what finished, as before, in batches.
            int n = unrequested;
            unrequested = 0;
            upstream.request(n);
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
        long f;
        ProgressLoop loop = engine.loop();
        if (loop.isRunning() && loop.inLoop()) {
            f = (long) FINISHED.getOpaque(this) + 1; // the loop is the only writer while it runs
            FINISHED.setRelease(this, f);
        } else {
            f = (long) FINISHED.getAndAdd(this, 1L) + 1; // rejected as the loop stops: any thread, maybe two at once
        }
        if ((long) TAKEN.getAcquire(this) == f) {
            // Possibly the last: upstream's end publishes upstreamDone, then reads finished; this side published
            // finished, and after this fence reads upstreamDone. One of the two sees the other's write and ends the
            // stream. While operations are still outstanding no fence is taken.
            VarHandle.fullFence();
            tryTerminate();
        }
    }

    /** Items taken and not yet finished. */
    private long outstanding() {
        return (long) TAKEN.getVolatile(this) - (long) FINISHED.getVolatile(this);
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
        if (!end || outstanding() != 0 || !TERMINATED.compareAndSet(this, 0, 1)) {
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
