package dev.rivulet.samples.bench;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.MessageClaim;
import dev.rivulet.core.MessageEncoder;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.Buffer;
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
 * Streaming send over the in-JVM {@code local} transport in steady state, to a peer whose {@code receive()}
 * subscriber releases every buffer at once: {@link #stream()} sends pooled buffers with
 * {@code Endpoint.send(Publisher<Buffer>)}, {@link #streamClaimed()} has each message encoded in place with
 * {@code Endpoint.send(Publisher<T>, maxMessageSize, MessageEncoder)}.
 *
 * <p>Two transports (two polling threads, as two processes would have) are connected once per trial. Each
 * invocation streams {@value #BATCH} messages and waits for the send to complete; JMH divides by
 * {@code @OperationsPerInvocation}, so scores and {@code gc.alloc.rate.norm} are per message.
 *
 * <p>The producer is a {@code Flux.generate} over one reused state object: per message it takes a pooled,
 * registered buffer ({@code memory().allocate(size)}) and writes an 8-byte header through the
 * buffer's capacity segment (no slice), so whatever is allocated per message comes from the transport, not from
 * the harness. Per invocation the harness allocates the {@code Flux.generate} subscription and {@code block()}'s
 * subscriber, and the transport allocates its {@code send(Publisher)} subscriber (one {@code Op} per prefetch
 * slot); divided by {@value #BATCH} that is noise next to the per-message figure. The claimed variant's publisher
 * emits one reused token, and its encoder writes the same 8-byte header from a counter of its own, so it neither
 * boxes nor takes a buffer per message.
 *
 * <pre>
 * java -jar samples/benchmarks/target/benchmarks.jar LocalStreaming -f 1 -wi 3 -i 5 -w 2s -r 3s -prof gc
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
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
    private CountingReceiver receiver;
    private Flux<Buffer> batch;
    private Flux<Object> tokens;
    private HeaderEncoder encoder;
    private long sent;

    @Setup(Level.Trial)
    public void setup() {
        serverTransport = Transports.open("local", TransportConfig.defaults());
        clientTransport = Transports.open("local", TransportConfig.defaults());
        listener = serverTransport.bind("local://bench-" + size + "-" + System.nanoTime()).block();
        sender = clientTransport.connect(listener.address()).block(Duration.ofSeconds(10));
        accepted = listener.accepted().blockFirst(Duration.ofSeconds(10));
        receiver = new CountingReceiver();
        accepted.receive().subscribe(receiver);
        BufferGen g = new BufferGen(sender.memory(), size);
        batch = Flux.generate(() -> g.reset(BATCH), BufferGen::next);
        Object token = new Object();
        tokens = Flux.generate(() -> new long[] {BATCH}, (left, sink) -> {
            if (left[0]-- == 0) {
                sink.complete();
            } else {
                sink.next(token);
            }
            return left;
        });
        encoder = new HeaderEncoder(size);
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void stream() {
        sender.send(batch).block();
        sent += BATCH;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void streamClaimed() {
        sender.send(tokens, size, encoder).block();
        sent += BATCH;
    }

    /** Writes an 8-byte header with its own sequence into each claimed message; runs on the progress thread. */
    private static final class HeaderEncoder implements MessageEncoder<Object> {
        private final int size;
        private long seq;

        HeaderEncoder(int size) {
            this.size = size;
        }

        @Override
        public int encode(Object token, MessageClaim claim) {
            claim.putLong(0, BenchWire.header(BenchWire.DATA, seq++));
            return size;
        }
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
