package dev.rivulet.samples.bench.fabric;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.progress.IdleStrategy;
import dev.rivulet.samples.bench.BufferGen;
import dev.rivulet.samples.bench.LocalStreamingBenchmark;
import dev.rivulet.samples.bench.CountingReceiver;
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
import reactor.core.publisher.Flux;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Streaming send over libfabric ({@code tcp} by default) in one JVM, for {@code -prof gc}: two transports (one
 * progress thread each), the same shape as {@link LocalStreamingBenchmark}. Scores are messages per second and
 * {@code gc.alloc.rate.norm} is bytes allocated per message by the whole JVM, i.e. sender and receiver together.
 * {@link FabricBenchCli} measures the same across two processes, against a native baseline.
 *
 * <pre>
 * java -jar samples/benchmarks/target/benchmarks.jar FabricStreaming -f 1 -wi 3 -i 5 -w 2s -r 3s -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
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
    private CountingReceiver receiver;
    private Flux<Buffer> batch;
    private long sent;

    @Setup(Level.Trial)
    public void setup() {
        LoopbackFabric.pin();
        TransportConfig config = TransportConfig.defaults().option("fabric.provider", provider);
        if (idle.equals("spin")) {
            config = config.idleStrategy(IdleStrategy::busySpin);
        }
        serverTransport = Transports.open("libfabric", config);
        clientTransport = Transports.open("libfabric", config);
        listener = serverTransport.bind("fabric://127.0.0.1:0?provider=" + provider).block(Duration.ofSeconds(20));
        receiver = new CountingReceiver();
        listener.accepted().subscribe(ep -> ep.receive().subscribe(receiver));
        sender = clientTransport.connect(listener.address()).block(Duration.ofSeconds(20));
        BufferGen g = new BufferGen(sender.memory(), size);
        batch = Flux.generate(() -> g.reset(BATCH), BufferGen::next);
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
            receiver.awaitAll(sent, Duration.ofSeconds(10));
        } finally {
            sender.dispose();
            listener.dispose();
            clientTransport.dispose();
            serverTransport.dispose();
        }
    }
}
