package dev.rivulet.core.engine;

import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Buffer;
import org.jctools.queues.SpscArrayQueue;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * {@code send(Publisher)}: local send-queue credits turned into upstream demand. It requests
 * {@code prefetch} messages (at most the send queue depth), and one more each time a message completes, so the
 * messages it holds never exceed the slots it may fill. Ops are preallocated and recycled: steady state allocates
 * nothing per message.
 *
 * <p>Termination: upstream completion ends the {@code Mono} once every message has completed; the first failure
 * cancels upstream and ends it with that failure once the messages in flight are accounted for; cancelling the
 * {@code Mono} cancels upstream, and messages already posted still release their buffers on completion.
 */
final class StreamingSend implements CoreSubscriber<Buffer>, Subscription, Op.Sink {

    /** The cold {@code Mono} a caller holds. */
    static final class SendMono extends Mono<Void> {
        private final EndpointEngine engine;
        private final Publisher<Buffer> source;

        SendMono(EndpointEngine engine, Publisher<Buffer> source) {
            this.engine = engine;
            this.source = source;
        }

        @Override
        public void subscribe(CoreSubscriber<? super Void> actual) {
            StreamingSend s = new StreamingSend(engine, actual);
            actual.onSubscribe(s);
            source.subscribe(s);
        }
    }

    private static final AtomicIntegerFieldUpdater<StreamingSend> OUTSTANDING =
            AtomicIntegerFieldUpdater.newUpdater(StreamingSend.class, "outstanding");
    private static final AtomicIntegerFieldUpdater<StreamingSend> TERMINATED =
            AtomicIntegerFieldUpdater.newUpdater(StreamingSend.class, "terminated");

    private final EndpointEngine engine;
    private final CoreSubscriber<? super Void> actual;
    private final SpscArrayQueue<Op> free;
    private final Op[] all;
    private final int prefetch;
    private Subscription upstream;
    /** Ops made so far; only the upstream's (serialised) onNext creates them. */
    private int created;
    private volatile boolean upstreamDone;
    private volatile boolean cancelled;
    private volatile Throwable failure;
    /** Messages taken from upstream and not yet finished. */
    private volatile int outstanding;
    private volatile int terminated;

    StreamingSend(EndpointEngine engine, CoreSubscriber<? super Void> actual) {
        this.engine = engine;
        this.actual = actual;
        this.prefetch = engine.sendPrefetch();
        this.free = new SpscArrayQueue<>(prefetch);
        this.all = new Op[prefetch];
    }

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
    public void onNext(Buffer buffer) {
        Objects.requireNonNull(buffer, "§2.13: onNext(null)");
        if (upstreamDone || cancelled || failure != null) {
            buffer.release();
            return;
        }
        try {
            engine.checkSendBuffer(buffer);
        } catch (TransportException e) {
            buffer.release();
            upstream.cancel();
            failWith(e);
            return;
        }
        Op op = takeOp();
        if (op == null) {
            // Upstream sent more than requested: a §1.1 violation. Refuse rather than grow.
            buffer.release();
            upstream.cancel();
            failWith(Operators.onOperatorError(new IllegalStateException("upstream ignored demand"),
                    actual.currentContext()));
            return;
        }
        op.recycle();
        op.kind = OpKind.SEND;
        op.buffer = buffer;
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

    /** Signals the end once upstream is done (or failed) and no message is outstanding. */
    private void tryTerminate() {
        boolean end = failure != null || upstreamDone;
        if (!end || outstanding != 0 || !TERMINATED.compareAndSet(this, 0, 1)) {
            return;
        }
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
        // Messages still waiting in the pending FIFO are dropped (their buffers released); posted ones finish
        // normally because the provider may still read their memory.
        for (Op op : all) {
            if (op != null) {
                op.cancel();
            }
        }
    }
}
