package dev.rivulet.samples.bench;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.memory.Buffer;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Flux;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static dev.rivulet.samples.bench.BenchWire.ACK;
import static dev.rivulet.samples.bench.BenchWire.PING;
import static dev.rivulet.samples.bench.BenchWire.PONG;
import static dev.rivulet.samples.bench.BenchWire.header;
import static dev.rivulet.samples.bench.BenchWire.type;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * A bench client's Rivulet {@code receive()} subscriber and the two measurements it takes part in: a streaming phase
 * (which ends with the server's ACK) and ping-pong (driven from here, each pong sending the next ping). Open so that
 * a node can take further message types in {@link #onOther}.
 */
public class ClientSide implements CoreSubscriber<Buffer> {
    private final Consumer<Throwable> report;
    private volatile CompletableFuture<Ack> ack = new CompletableFuture<>();
    private volatile PingPong ping;

    public ClientSide(Consumer<Throwable> report) {
        this.report = report;
    }

    /** Sends {@code n} messages from {@code g} and returns the server's checked ACK of them. */
    public Ack phase(Endpoint ep, BufferGen g, long n, Duration timeout) throws Exception {
        g.reset(n);
        return phase(ep, Flux.generate(() -> g, BufferGen::next), n, timeout);
    }

    /** Sends the {@code n} messages of {@code messages} and returns the server's checked ACK of them. */
    public Ack phase(Endpoint ep, Flux<Buffer> messages, long n, Duration timeout) throws Exception {
        CompletableFuture<Ack> f = new CompletableFuture<>();
        ack = f;
        ep.send(messages).block(timeout);
        return f.get(timeout.toSeconds(), TimeUnit.SECONDS).check("server", n);
    }

    /** {@code count} timed round trips after a tenth as many untimed ones; returns their round-trip nanoseconds. */
    public long[] pingpong(Endpoint ep, int size, int count, Duration timeout) throws Exception {
        PingPong p = new PingPong((seq, pp) -> {
            Buffer b = ep.memory().allocate(size);
            b.capacitySegment().set(JAVA_LONG_UNALIGNED, 0, header(PING, seq));
            ep.send(b).subscribe(null, pp::fail);
        }, Math.max(1, count / 10), count);
        ping = p;
        p.start();
        p.done.get(timeout.toSeconds(), TimeUnit.SECONDS);
        return p.rtt;
    }

    @Override
    public void onSubscribe(Subscription s) {
        s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(Buffer b) {
        long now = System.nanoTime();
        MemorySegment seg = b.capacitySegment();
        long h = seg.get(JAVA_LONG_UNALIGNED, 0);
        switch (type(h)) {
            case PONG -> ping.pong(now);
            case ACK -> ack.complete(Ack.read(seg, now));
            default -> onOther(h, seg, b);
        }
    }

    /** A message that is neither PONG nor ACK: {@code h} its header ({@code b} is lent until this returns). */
    protected void onOther(long h, MemorySegment seg, Buffer b) {
    }

    @Override
    public void onError(Throwable t) {
        report.accept(t);
        fail(t);
    }

    @Override
    public void onComplete() {
        fail(new IllegalStateException("server closed the endpoint"));
    }

    /** The endpoint failed or closed: whoever waits for an answer gets {@code e}. */
    protected void fail(Throwable e) {
        ack.completeExceptionally(e);
    }
}
