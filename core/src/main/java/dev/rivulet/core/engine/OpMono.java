package dev.rivulet.core.engine;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Buffer;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * A single operation as a cold {@code Mono}: each subscription validates, builds one {@link Op} and submits it.
 * Emits the fetched value for atomics that return one, nothing otherwise.
 *
 * <p>A {@code Mono} that carries a buffer ({@code send(Buffer)}) can be subscribed once: the first subscription
 * takes the buffer's reference; a second one fails with {@link InvalidRequestException} (not retryable, so a
 * {@code retryWhen} filtering on {@code isRetryable()} stops) instead of sending freed memory.
 */
final class OpMono<T> extends Mono<T> {

    private final EndpointEngine engine;
    private final Consumer<Op> prepare;
    private final Buffer owned;
    private final AtomicBoolean subscribed;

    OpMono(EndpointEngine engine, Consumer<Op> prepare, Buffer owned) {
        this.engine = engine;
        this.prepare = prepare;
        this.owned = owned;
        this.subscribed = owned == null ? null : new AtomicBoolean();
    }

    @Override
    public void subscribe(CoreSubscriber<? super T> actual) {
        if (subscribed != null && !subscribed.compareAndSet(false, true)) {
            Operators.error(actual, new InvalidRequestException("send(Buffer) can be subscribed only once: its buffer "
                    + "went with the first subscription (build the buffer inside Mono.defer to retry a send)"));
            return;
        }
        if (engine.isDraining()) {
            if (owned != null && owned.refCnt() > 0) {
                owned.release();
            }
            Operators.error(actual, engine.refusedWhileClosing());
            return;
        }
        Op op = new Op(engine);
        try {
            prepare.accept(op);
        } catch (TransportException e) {
            if (owned != null && owned.refCnt() > 0) {
                owned.release(); // the send owned it: a refused send must not leak it
            }
            Operators.error(actual, e);
            return;
        }
        OpSubscription<T> s = new OpSubscription<>(actual, op);
        op.sink = s;
        op.context = actual.currentContext();
        actual.onSubscribe(s);
        engine.submit(op);
    }

    /** Bridges an op's outcome to one subscriber; cancellation marks the op so it is never signalled. */
    static final class OpSubscription<T> extends Operators.MonoSubscriber<T, T> implements Op.Sink {

        private final Op op;

        OpSubscription(CoreSubscriber<? super T> actual, Op op) {
            super(actual);
            this.op = op;
        }

        @Override
        @SuppressWarnings("unchecked")
        public void opCompleted(Op op, long value) {
            if (isCancelled()) {
                return;
            }
            if (op.kind == OpKind.ATOMIC && op.atomic != AtomicOp.ADD) {
                complete((T) Long.valueOf(value));
            } else {
                actual.onComplete();
            }
        }

        @Override
        public void opFailed(Op op, Throwable error) {
            if (!isCancelled()) {
                actual.onError(error);
            }
        }

        @Override
        public void cancel() {
            super.cancel();
            op.cancel();
        }
    }
}
