package dev.rivulet.samples.bench.interaction;

import dev.rivulet.samples.bench.PingPong;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The three measurements, one driver for every implementation so that each does the same work per request: the
 * next request leaves from the thread that took the previous answer (a polling thread, an event loop), answers are
 * read and given back per their contract ({@link Requesting#done}), and the driver's own cost per request is one
 * small subscriber.
 */
final class InteractionDriver {

    /** Demand a request-stream's subscriber starts with, and tops up by half of as it consumes. */
    static final int STREAM_PREFETCH = 256;

    private InteractionDriver() {
    }

    /**
     * Request-response with one request in flight: {@code count} timed round trips after {@code warm} untimed ones,
     * each answer's {@code onComplete} sending the next request; returns the round trips in nanoseconds.
     */
    static <P> long[] roundTrips(Requesting<P> side, int size, int warm, int count, Duration timeout)
            throws Exception {
        PingPong[] p = new PingPong[1];
        p[0] = new PingPong((seq, pp) -> side.requestResponse(size).subscribe(new Answer<>(side, size, pp)),
                warm, count);
        p[0].start();
        p[0].done.get(timeout.toSeconds(), TimeUnit.SECONDS);
        return p[0].rtt;
    }

    /**
     * Request-response with {@code window} requests in flight until {@code count} answers arrived; returns the
     * seconds it took.
     */
    static <P> double inFlight(Requesting<P> side, int size, long count, int window, Duration timeout)
            throws Exception {
        Window<P> w = new Window<>(side, size, count);
        long t0 = System.nanoTime();
        for (int i = 0; i < Math.min(window, count); i++) {
            w.next();
        }
        w.done.get(timeout.toSeconds(), TimeUnit.SECONDS);
        return (System.nanoTime() - t0) / 1e9;
    }

    /** One request-stream of {@code count} payloads of {@code size} bytes; returns the seconds until its end. */
    static <P> double stream(Requesting<P> side, int size, long count, Duration timeout) throws Exception {
        StreamReader<P> r = new StreamReader<>(side, size, count);
        long t0 = System.nanoTime();
        side.requestStream(count, size).subscribe(r);
        r.done.get(timeout.toSeconds(), TimeUnit.SECONDS);
        return (System.nanoTime() - t0) / 1e9;
    }

    /**
     * The subscriber of one request-response: checks and gives back its answer, then calls {@link #answered}. A
     * {@link CoreSubscriber}, as both implementations' publishers are Reactor's, so that neither wraps it in a
     * subscriber of its own per request.
     */
    private static class Exchange<P> implements CoreSubscriber<P> {

        private final Requesting<P> side;
        private final int size;
        private boolean answered;

        Exchange(Requesting<P> side, int size) {
            this.side = side;
            this.size = size;
        }

        @Override
        public void onSubscribe(Subscription s) {
            s.request(1);
        }

        @Override
        public void onNext(P answer) {
            int length = side.dataLength(answer);
            side.done(answer);
            if (length != size) {
                failed(new IllegalStateException("an answer of " + length + " bytes to a request of " + size));
                return;
            }
            answered = true;
            onAnswer();
        }

        @Override
        public void onError(Throwable t) {
            failed(t);
        }

        @Override
        public void onComplete() {
            if (answered) {
                answered();
            } else {
                failed(new IllegalStateException("a request-response completed without an answer"));
            }
        }

        /** The answer arrived (before {@code onComplete}). */
        void onAnswer() {
        }

        /** The request is over and had its answer: the next may go. */
        void answered() {
        }

        void failed(Throwable t) {
        }
    }

    /** One round trip of {@link #roundTrips}: the clock stops at the answer, the next request leaves at the end. */
    private static final class Answer<P> extends Exchange<P> {

        private final PingPong pingPong;
        private long arrived;

        Answer(Requesting<P> side, int size, PingPong pingPong) {
            super(side, size);
            this.pingPong = pingPong;
        }

        @Override
        void onAnswer() {
            arrived = System.nanoTime();
        }

        @Override
        void answered() {
            pingPong.pong(arrived);
        }

        @Override
        void failed(Throwable t) {
            pingPong.fail(t);
        }
    }

    /** {@link #inFlight}: each answered request sends the next until {@code count} are answered. */
    private static final class Window<P> {

        private final Requesting<P> side;
        private final int size;
        private final long count;
        private final AtomicLong sent = new AtomicLong();
        private final AtomicLong answered = new AtomicLong();
        final CompletableFuture<Void> done = new CompletableFuture<>();

        Window(Requesting<P> side, int size, long count) {
            this.side = side;
            this.size = size;
            this.count = count;
        }

        void next() {
            if (sent.getAndIncrement() < count) {
                side.requestResponse(size).subscribe(new Exchange<>(side, size) {
                    @Override
                    void answered() {
                        if (answered.incrementAndGet() == count) {
                            done.complete(null);
                        } else {
                            next();
                        }
                    }

                    @Override
                    void failed(Throwable t) {
                        done.completeExceptionally(t);
                    }
                });
            }
        }
    }

    /** {@link #stream}'s subscriber: bounded demand, topped up as it consumes, as a windowed consumer does. */
    private static final class StreamReader<P> implements CoreSubscriber<P> {

        private final Requesting<P> side;
        private final int size;
        private final long count;
        private @Nullable Subscription upstream;
        private long received;
        private int sinceRequest;
        final CompletableFuture<Void> done = new CompletableFuture<>();

        StreamReader(Requesting<P> side, int size, long count) {
            this.side = side;
            this.size = size;
            this.count = count;
        }

        @Override
        public void onSubscribe(Subscription s) {
            upstream = s;
            s.request(STREAM_PREFETCH);
        }

        @Override
        public void onNext(P payload) {
            int length = side.dataLength(payload);
            side.done(payload);
            if (length != size) {
                done.completeExceptionally(new IllegalStateException("a payload of " + length + " bytes, not " + size));
                return;
            }
            received++;
            if (++sinceRequest == STREAM_PREFETCH / 2 && upstream != null) {
                sinceRequest = 0;
                upstream.request(STREAM_PREFETCH / 2);
            }
        }

        @Override
        public void onError(Throwable t) {
            done.completeExceptionally(t);
        }

        @Override
        public void onComplete() {
            if (received == count) {
                done.complete(null);
            } else {
                done.completeExceptionally(new IllegalStateException("a stream of " + received + " payloads, not "
                        + count));
            }
        }
    }
}
