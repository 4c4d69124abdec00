package dev.rivulet.core.engine;

import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.memory.Buffer;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Operators;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code receive()}: the subscriber's demand travels to the progress loop, which turns it into posted receives and
 * credits for the peer ({@link Inbound#serviceReceiver()}). Signals are emitted on the progress thread, and
 * each buffer is lent for the duration of {@code onNext}: it is released when {@code onNext} returns (the subscriber
 * keeps it by retaining it), so no operator downstream can leak it.
 */
final class ReceiveFlux extends Flux<Buffer> {

    private static final MemoryAccess LENDING = Internals.memory();

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

    /** The subscription. {@code demand} is progress-thread state; {@code requested} is how it gets there. */
    static final class Receiver implements org.reactivestreams.Subscription {

        private final EndpointEngine engine;
        private final CoreSubscriber<? super Buffer> actual;
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
            long r = requested.getAndSet(0);
            if (r > 0) {
                demand = demand + r < 0 ? Long.MAX_VALUE : demand + r;
            }
        }

        void next(Buffer b) {
            if (done || cancelled) {
                b.release();
                return;
            }
            long token = LENDING.allocationToken(b);
            try {
                actual.onNext(b);
            } finally {
                if (!LENDING.releaseIfStill(b, token)) {
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
