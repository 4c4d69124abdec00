package dev.rivulet.samples.bench;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
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
import reactor.core.publisher.Flux;
import reactor.core.publisher.SynchronousSink;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Streaming send over the in-JVM {@code local} transport in steady state: {@code Endpoint.send(Publisher<Buffer>)}
 * to a peer whose {@code receive()} subscriber releases every buffer at once.
 *
 * <p>Two transports (two polling threads, as two processes would have) are connected once per trial. Each
 * invocation streams {@value #BATCH} messages and waits for the send to complete; JMH divides by
 * {@code @OperationsPerInvocation}, so scores and {@code gc.alloc.rate.norm} are per message.
 *
 * <p>The producer is a {@code Flux.generate} over one reused state object: per message it takes a pooled,
 * registered buffer ({@code memory().allocate(size)}) and writes an 8-byte sequence number through the
 * buffer's capacity segment (no slice), so whatever is allocated per message comes from the transport, not from
 * the harness. Per invocation the harness allocates the {@code Flux.generate} subscription and {@code block()}'s
 * subscriber, and the transport allocates its {@code send(Publisher)} subscriber (one {@code Op} per prefetch
 * slot); divided by {@value #BATCH} that is noise next to the per-message figure.
 *
 * <pre>
 * java -jar samples/target/benchmarks.jar LocalStreaming -f 1 -wi 3 -i 5 -w 2s -r 3s -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class LocalStreamingBenchmark {

    /** Messages per benchmark invocation. */
    public static final int BATCH = 10_000;

    @Param({"64", "256", "4096"})
    public int size;

    private Transport serverTransport;
    private Transport clientTransport;
    private Listener listener;
    private Endpoint sender;
    private Endpoint accepted;
    private ReleasingSubscriber receiver;
    private Batch batchState;
    private Flux<Buffer> batch;
    private long sent;

    @Setup(Level.Trial)
    public void setup() {
        serverTransport = Transports.open("local", TransportConfig.defaults());
        clientTransport = Transports.open("local", TransportConfig.defaults());
        listener = serverTransport.bind("local://bench-" + size + "-" + System.nanoTime()).block();
        sender = clientTransport.connect(listener.address()).block(Duration.ofSeconds(10));
        accepted = listener.accepted().blockFirst(Duration.ofSeconds(10));
        receiver = new ReleasingSubscriber();
        accepted.receive().subscribe(receiver);
        batchState = new Batch(sender.memory(), size);
        Batch state = batchState;
        batch = Flux.generate(state::reset, Batch::next);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void stream() {
        sender.send(batch).block();
        sent += BATCH;
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (receiver.count() < sent && System.nanoTime() < deadline) {
                LockSupport.parkNanos(1_000_000);
            }
            if (receiver.count() != sent) {
                throw new IllegalStateException("sent " + sent + " messages but the receiver got " + receiver.count());
            }
            if (receiver.failure != null) {
                throw new IllegalStateException("receive failed", receiver.failure);
            }
        } finally {
            sender.dispose();
            listener.dispose();
            clientTransport.dispose();
            serverTransport.dispose();
        }
    }

    /** The producer's state, reused by every invocation: no per-message boxing or capturing lambdas. */
    static final class Batch {
        private final MemoryDomain memory;
        private final int size;
        private int remaining;
        private long seq;

        Batch(MemoryDomain memory, int size) {
            this.memory = memory;
            this.size = size;
        }

        Batch reset() {
            remaining = BATCH;
            return this;
        }

        static Batch next(Batch s, SynchronousSink<Buffer> sink) {
            if (s.remaining == 0) {
                sink.complete();
                return s;
            }
            s.remaining--;
            Buffer b = s.memory.allocate(s.size);
            b.capacitySegment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, s.seq++);
            sink.next(b);
            return s;
        }
    }

    /** Requests without bound (the transport caps it at the receive queue depth) and releases each buffer. */
    static final class ReleasingSubscriber implements CoreSubscriber<Buffer> {
        private static final VarHandle COUNT;

        static {
            try {
                COUNT = MethodHandles.lookup().findVarHandle(ReleasingSubscriber.class, "count", long.class);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        @SuppressWarnings("unused") // through COUNT
        private long count;
        volatile Throwable failure;

        @Override
        public void onSubscribe(Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(Buffer b) {
            b.release();
            COUNT.setRelease(this, (long) COUNT.getOpaque(this) + 1);
        }

        @Override
        public void onError(Throwable t) {
            failure = t;
        }

        @Override
        public void onComplete() {
        }

        long count() {
            return (long) COUNT.getAcquire(this);
        }
    }
}
