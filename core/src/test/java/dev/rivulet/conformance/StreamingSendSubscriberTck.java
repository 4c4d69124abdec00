package dev.rivulet.conformance;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.memory.Buffer;
import org.reactivestreams.Subscriber;
import org.reactivestreams.tck.SubscriberBlackboxVerification;
import org.reactivestreams.tck.TestEnvironment;
import org.testng.annotations.AfterClass;
import org.testng.annotations.BeforeClass;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Reactive Streams TCK subscriber rules on what subscribes to the {@code Publisher} handed to
 * {@code Endpoint.send(Publisher)}. The subscriber is captured by giving {@code send} a publisher that records who
 * subscribes; the TCK then drives it. The server side drains and releases everything.
 */
public abstract class StreamingSendSubscriberTck extends SubscriberBlackboxVerification<Buffer> {

    private Transport server;
    private Transport client;
    private final List<Pair> pairs = new ArrayList<>();

    protected StreamingSendSubscriberTck() {
        super(new TestEnvironment(2_000, 500));
    }

    protected abstract Transport openTransport(TransportConfig config);

    protected abstract String bindAddress(String name);

    @BeforeClass
    public void openTransports() {
        server = openTransport(TransportConfig.defaults());
        client = openTransport(TransportConfig.defaults());
    }

    @AfterClass(alwaysRun = true)
    public void closeTransports() {
        pairs.forEach(Pair::close);
        client.dispose();
        server.dispose();
    }

    @Override
    @SuppressWarnings("unchecked")
    public Subscriber<Buffer> createSubscriber() {
        Pair p = Pair.connect(server, client, bindAddress("tck-sub"));
        pairs.add(p);
        p.server().receive().subscribe(Buffer::release, e -> { });
        AtomicReference<Subscriber<? super Buffer>> captured = new AtomicReference<>();
        p.client().send(captured::set).subscribe(null, e -> { });
        return (Subscriber<Buffer>) captured.get();
    }

    @Override
    public Buffer createElement(int element) {
        Pair p = pairs.getLast();
        return Messages.make(p.client().memory(), element, 16);
    }
}
