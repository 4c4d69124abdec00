package dev.rivulet.samples.bench.fabric;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.progress.IdleStrategy;
import dev.rivulet.samples.bench.LocalStreamingBenchmark;
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
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Streaming send over libfabric ({@code tcp} by default) in one JVM, for {@code -prof gc}: two transports (one
 * progress thread each), the same shape as {@link LocalStreamingBenchmark}. Scores are messages per second and
 * {@code gc.alloc.rate.norm} is bytes allocated per message by the whole JVM, i.e. sender and receiver together.
 * {@link FabricBenchCli} measures the same across two processes, against a native baseline.
 *
 * <pre>
 * java -jar samples/target/benchmarks.jar FabricStreaming -f 1 -wi 3 -i 5 -w 2s -r 3s -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"})
public class FabricStreamingBenchmark {

    /** Messages per benchmark invocation. */
    public static final int BATCH = 10_000;

    @Param({"64", "4096"})
    public int size;

    @Param({"tcp"})
    public String provider;

    /** {@code spin}: busy-polling progress threads, as in FabricBenchCli; {@code default}: the default backoff. */
    @Param({"spin"})
    public String idle;

    private Transport serverTransport;
    private Transport clientTransport;
    private Listener listener;
    private Endpoint sender;
    private Counter receiver;
    private Flux<Buffer> batch;
    private long sent;

    @Setup(Level.Trial)
    public void setup() {
        LoopbackFabric.pin();
        TransportConfig config = TransportConfig.defaults().option("provider", provider);
        if (idle.equals("spin")) {
            config = config.idleStrategy(IdleStrategy::busySpin);
        }
        serverTransport = Transports.open("libfabric", config);
        clientTransport = Transports.open("libfabric", config);
        listener = serverTransport.bind("fabric://127.0.0.1:0?provider=" + provider).block(Duration.ofSeconds(20));
        receiver = new Counter();
        listener.accepted().subscribe(ep -> ep.receive().subscribe(receiver));
        sender = clientTransport.connect(listener.address()).block(Duration.ofSeconds(20));
        Gen g = new Gen(sender, size);
        batch = Flux.generate(g::reset, Gen::next);
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
            while (receiver.count.get() < sent && System.nanoTime() < deadline) {
                LockSupport.parkNanos(1_000_000);
            }
            if (receiver.count.get() != sent) {
                throw new IllegalStateException("sent " + sent + " messages but the receiver got "
                        + receiver.count.get());
            }
        } finally {
            sender.dispose();
            listener.dispose();
            clientTransport.dispose();
            serverTransport.dispose();
        }
    }

    static final class Gen {
        private final Endpoint ep;
        private final int size;
        private int remaining;
        private long seq;

        Gen(Endpoint ep, int size) {
            this.ep = ep;
            this.size = size;
        }

        Gen reset() {
            remaining = BATCH;
            return this;
        }

        static Gen next(Gen g, SynchronousSink<Buffer> sink) {
            if (g.remaining == 0) {
                sink.complete();
                return g;
            }
            g.remaining--;
            Buffer b = g.ep.memory().allocate(g.size);
            b.capacitySegment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, g.seq++);
            sink.next(b);
            return g;
        }
    }

    static final class Counter implements CoreSubscriber<Buffer> {
        final AtomicLong count = new AtomicLong();

        @Override
        public void onSubscribe(Subscription s) {
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(Buffer b) {
            b.release();
            count.lazySet(count.get() + 1);
        }

        @Override
        public void onError(Throwable t) {
            System.err.println("receive failed: " + t);
        }

        @Override
        public void onComplete() {
        }
    }
}
