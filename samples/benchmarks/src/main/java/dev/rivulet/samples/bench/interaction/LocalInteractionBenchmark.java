package dev.rivulet.samples.bench.interaction;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.interaction.Interactions;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.interaction.Requester;
import dev.rivulet.core.interaction.Responder;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The interaction models over the in-JVM {@code local} transport, in steady state: request-response with
 * {@link #inFlight} requests outstanding, answered with a {@code Mono} known when the handler returns
 * ({@link #requestResponse()}, a prepared {@code Mono.just}) or with one the session subscribes to
 * ({@link #requestResponseSubscribed()}), and fire-and-forget. Two transports (two polling threads, as two
 * processes would have) are connected once per trial; each invocation makes {@value #BATCH} requests and waits for
 * the last answer (or, for fire-and-forget, for the responder to have seen every request). JMH divides by
 * {@code @OperationsPerInvocation}, so scores and {@code gc.alloc.rate.norm} are per request, both sides together.
 *
 * <p>The harness itself allocates nothing per request, so what {@code -prof gc} shows is the interaction layer's:
 * every request carries one heap payload built once ({@code Payload.of(byte[])}, which the session copies into its
 * frame and never releases), each of the {@link #inFlight} driving subscribers subscribes again to a new request
 * from the {@code onComplete} of the previous one, and the responder answers with one {@code Mono.just} made once,
 * or from a pool of single-use answers (a {@code Mono} that is also its own {@code Subscription}, given back to the
 * pool when it completed). The requests' {@code Mono}s are the layer's.
 *
 * <pre>
 * java -jar samples/benchmarks/target/benchmarks.jar LocalInteraction -f 1 -wi 3 -i 5 -w 2s -r 3s -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class LocalInteractionBenchmark {

    /** Requests per benchmark invocation. */
    public static final int BATCH = 10_000;
    /** Bytes of data in each request and each answer. */
    public static final int SIZE = 64;

    @Param({"1", "256"})
    public int inFlight;

    private Transport serverTransport;
    private Transport clientTransport;
    private Listener listener;
    private Endpoint client;
    private Requester requester;
    private Payload request;
    /** A request one byte longer, which the responder answers with a publisher it must subscribe to. */
    private Payload subscribedRequest;
    private Driver[] drivers;
    private final AtomicLong fireAndForgetsSeen = new AtomicLong();
    private long fireAndForgetsSent;
    private volatile Thread waiter;
    private final AtomicLong left = new AtomicLong();
    private final AtomicLong running = new AtomicLong();
    private volatile Throwable failure;

    @Setup(Level.Trial)
    public void setup() {
        serverTransport = Transports.open("local", TransportConfig.defaults());
        clientTransport = Transports.open("local", TransportConfig.defaults());
        listener = serverTransport.bind("local://interactions-" + inFlight + "-" + System.nanoTime()).block();
        client = clientTransport.connect(listener.address()).block(Duration.ofSeconds(10));
        Endpoint accepted = listener.accepted().blockFirst(Duration.ofSeconds(10));
        Interactions.server(accepted, new Answers(fireAndForgetsSeen));
        requester = Interactions.client(client);
        request = Payload.of(new byte[SIZE]);
        subscribedRequest = Payload.of(new byte[SIZE + 1]);
        drivers = new Driver[inFlight];
        for (int i = 0; i < inFlight; i++) {
            drivers[i] = new Driver();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void requestResponse() {
        requestResponses(request);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void requestResponseSubscribed() {
        requestResponses(subscribedRequest);
    }

    private void requestResponses(Payload each) {
        waiter = Thread.currentThread();
        left.set(BATCH - inFlight);
        running.set(inFlight);
        for (Driver d : drivers) {
            d.request = each;
            d.next();
        }
        while (running.get() > 0) {
            LockSupport.parkNanos(this, 100_000);
            check();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void fireAndForget() {
        Driver d = drivers[0];
        for (int i = 0; i < BATCH; i++) {
            requester.fireAndForget(request).subscribe(d.forFireAndForget);
        }
        fireAndForgetsSent += BATCH;
        while (fireAndForgetsSeen.get() < fireAndForgetsSent) {
            LockSupport.parkNanos(this, 100_000);
            check();
        }
    }

    private void check() {
        if (failure != null) {
            throw new IllegalStateException("a request failed", failure);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        requester.dispose();
        listener.dispose();
        clientTransport.dispose();
        serverTransport.dispose();
    }

    /** One request in flight at a time: each answer's end makes the next request, until the batch is done. */
    private final class Driver implements CoreSubscriber<Payload> {

        /** What this driver sends in each of its requests. */
        Payload request;

        /** Completes fire-and-forgets, which end as soon as their frame is written. */
        final CoreSubscriber<Void> forFireAndForget = new CoreSubscriber<>() {
            @Override
            public void onSubscribe(Subscription s) {
                s.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(Void v) {
            }

            @Override
            public void onError(Throwable t) {
                failure = t;
            }

            @Override
            public void onComplete() {
            }
        };

        void next() {
            requester.requestResponse(request).subscribe(this);
        }

        @Override
        public void onSubscribe(Subscription s) {
            s.request(1);
        }

        @Override
        public void onNext(Payload answer) {
            // lent for this call, as receive() buffers are: nothing to give back
        }

        @Override
        public void onError(Throwable t) {
            failure = t;
            running.decrementAndGet();
        }

        @Override
        public void onComplete() {
            if (left.getAndDecrement() > 0) {
                next();
            } else if (running.decrementAndGet() == 0) {
                LockSupport.unpark(waiter);
            }
        }
    }

    /** Answers each request-response with one heap payload built once, and counts fire-and-forgets. */
    private static final class Answers implements Responder {

        private final Payload answer = Payload.of(new byte[SIZE]);
        private final Mono<Payload> known = Mono.just(answer);
        /** Answers given back after they completed; the responder's calls all come from its polling thread. */
        private final ArrayDeque<Answer> pool = new ArrayDeque<>();
        private final AtomicLong seen;

        Answers(AtomicLong seen) {
            this.seen = seen;
        }

        @Override
        public Mono<Void> fireAndForget(Payload request) {
            seen.incrementAndGet();
            return Mono.empty();
        }

        @Override
        public Mono<Payload> requestResponse(Payload request) {
            if (request.dataLength() == SIZE) {
                return known;
            }
            Answer a = pool.poll();
            return a != null ? a : new Answer();
        }

        /** A single-use answer, its own subscription, back in the pool once it completed its subscriber. */
        private final class Answer extends Mono<Payload> implements Subscription {

            private CoreSubscriber<? super Payload> subscriber;

            @Override
            public void subscribe(CoreSubscriber<? super Payload> s) {
                subscriber = s;
                s.onSubscribe(this);
            }

            @Override
            public void request(long n) {
                CoreSubscriber<? super Payload> s = subscriber;
                if (s != null) {
                    subscriber = null;
                    s.onNext(answer);
                    s.onComplete();
                    pool.offer(this);
                }
            }

            @Override
            public void cancel() {
                subscriber = null;
            }
        }
    }
}
