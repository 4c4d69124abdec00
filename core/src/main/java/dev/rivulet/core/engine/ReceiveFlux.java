package dev.rivulet.core.engine;

import dev.rivulet.core.internal.BufferLending;
import dev.rivulet.core.memory.Buffer;
import org.jspecify.annotations.Nullable;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code receive()}: the subscriber's demand travels to the progress loop, which turns it into posted receives and
 * credits for the peer ({@link Inbound#serviceReceiver()}). Signals are emitted on the progress thread, and each
 * message is lent for the duration of {@code onNext} as a view onto the memory it sits in ({@link BufferLending}):
 * unusable once {@code onNext} returns unless the subscriber retained it, so no operator downstream can leak it.
 */
final class ReceiveFlux extends Flux<Buffer> {

    private final EndpointEngine engine;

    ReceiveFlux(EndpointEngine engine) {
        this.engine = engine;
    }

    @Override
    public void subscribe(CoreSubscriber<? super Buffer> actual) {
        Receiver r = new Receiver(engine, actual);
        actual.onSubscribe(r);
        try {
            engine.loop().execute(() -> {
                try {
                    engine.inbound().attach(r);
                } catch (Throwable t) {
                    engine.fault(t); // the subscriber's handler threw on the loop: its endpoint ends, the loop goes on
                }
            });
        } catch (RuntimeException e) {
            r.error(engine.closeCause() != null ? engine.closeCause()
                    : new dev.rivulet.core.error.ResourceClosedException("transport is closed"));
        }
    }

    /**
     * The subscription. {@code demand} is progress-thread state; {@code requested} is how it gets there from other
     * threads, while a request made from inside {@code onNext} (Reactor's operators replenish there) adds to
     * {@code demand} directly: no atomic operation and no task per message.
     */
    static final class Receiver implements org.reactivestreams.Subscription {

        private final EndpointEngine engine;
        private final CoreSubscriber<? super Buffer> actual;
        /**
         * The progress thread while it is inside {@code onNext}, else null. A plain field: only that thread writes
         * it, so no other thread can ever read its own {@code Thread} from it, stale or not.
         */
        private @Nullable Thread delivering;
        private final AtomicLong requested = new AtomicLong();
        private final AtomicBoolean scheduled = new AtomicBoolean();
        private final Runnable service;
        private volatile boolean cancelled;
        private boolean done;
        private boolean badRequest;
        long demand;

        Receiver(EndpointEngine engine, CoreSubscriber<? super Buffer> actual) {
            this.engine = engine;
            this.actual = actual;
            this.service = () -> {
                scheduled.set(false);
                if (badRequest) {
                    badRequest = false;
                    cancelled = true;
                    error(new IllegalArgumentException("§3.9 violated: request(n) needs n > 0"));
                }
                try {
                    engine.inbound().serviceReceiver();
                } catch (Throwable t) {
                    engine.fault(t); // the subscriber's handler threw on the loop: its endpoint ends, the loop goes on
                }
            };
        }

        @Override
        public void request(long n) {
            if (n > 0 && delivering == Thread.currentThread()) {
                demand = Operators.addCap(demand, n);
                return;
            }
            if (n <= 0) {
                badRequest = true;
            } else {
                requested.getAndAccumulate(n, Operators::addCap);
            }
            schedule();
        }

        @Override
        public void cancel() {
            cancelled = true;
            schedule();
        }

        private void schedule() {
            if (scheduled.compareAndSet(false, true)) {
                try {
                    engine.loop().execute(service);
                } catch (RuntimeException e) {
                    scheduled.set(false);
                }
            }
        }

        boolean isCancelled() {
            return cancelled;
        }

        /** Moves newly requested demand into {@link #demand} (progress thread). */
        void collectDemand() {
            if (requested.get() == 0) {
                return; // the common case on every arrival: no read-modify-write for nothing
            }
            long r = requested.getAndSet(0);
            if (r > 0) {
                demand = demand + r < 0 ? Long.MAX_VALUE : demand + r;
            }
        }

        /** Whether there is demand for a message now (progress thread). */
        boolean wantsMore() {
            if (demand == 0) {
                collectDemand();
            }
            return demand > 0 && !cancelled;
        }

        /**
         * Lends {@code length} bytes at {@code offset} of {@code source} through {@code lending} for {@code onNext},
         * using one unit of demand; {@code source} stays the caller's to release.
         */
        void next(BufferLending lending, Buffer source, long offset, int length) {
            demand--;
            if (done || cancelled) {
                return;
            }
            Buffer view = lending.lend(source, offset, length);
            delivering = Thread.currentThread();
            try {
                actual.onNext(view);
            } finally {
                delivering = null;
                if (!lending.giveBack(view)) {
                    engine.lentBufferReleasedBySubscriber();
                }
            }
        }

        void complete() {
            if (!done) {
                done = true;
                actual.onComplete();
            }
        }

        void error(Throwable t) {
            if (!done) {
                done = true;
                actual.onError(t);
            }
        }
    }
}
