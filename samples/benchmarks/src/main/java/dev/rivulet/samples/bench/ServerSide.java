package dev.rivulet.samples.bench;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.memory.Buffer;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;

import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

import static dev.rivulet.samples.bench.BenchWire.PING;
import static dev.rivulet.samples.bench.BenchWire.PONG;
import static dev.rivulet.samples.bench.BenchWire.header;
import static dev.rivulet.samples.bench.BenchWire.seq;
import static dev.rivulet.samples.bench.BenchWire.type;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * A bench server's Rivulet {@code receive()} subscriber, whatever the transport: counts and checks data (numbered
 * messages and copies alike), answers
 * LAST with an ACK and PING with the received buffer itself. Open so that a node can greet the client on subscribe.
 */
public class ServerSide implements CoreSubscriber<Buffer> {
    protected final Endpoint ep;
    protected final Consumer<Throwable> report;
    private final SeqCounter counter = new SeqCounter();

    /** {@code report} gets failures of sends and of the endpoint, which have no caller to go to. */
    public ServerSide(Endpoint ep, Consumer<Throwable> report) {
        this.ep = ep;
        this.report = report;
    }

    @Override
    public void onSubscribe(Subscription s) {
        s.request(Long.MAX_VALUE);
    }

    @Override
    public void onNext(Buffer b) {
        MemorySegment seg = b.capacitySegment();
        long h = seg.get(JAVA_LONG_UNALIGNED, 0);
        if (counter.onMessage(h)) {
            Buffer ack = ep.memory().allocate(32);
            counter.ack(ack.capacitySegment());
            ep.send(ack).subscribe(null, report);
        } else if (type(h) == PING) {
            // Zero-copy echo: the received buffer belongs to this transport's memory domain, so it can be sent.
            seg.set(JAVA_LONG_UNALIGNED, 0, header(PONG, seq(h)));
            // The send takes a reference of its own; receive() drops the one it lent when this returns.
            ep.send(b.retain()).subscribe(null, report);
        }
    }

    @Override
    public void onError(Throwable t) {
        report.accept(t);
    }

    @Override
    public void onComplete() {
    }
}
