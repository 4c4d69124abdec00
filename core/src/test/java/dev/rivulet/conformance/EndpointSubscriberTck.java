package dev.rivulet.conformance;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.tck.SubscriberBlackboxVerification;
import org.reactivestreams.tck.TestEnvironment;
import org.testng.annotations.AfterClass;
import org.testng.annotations.BeforeClass;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Reactive Streams TCK subscriber rules on what subscribes to a {@code Publisher} handed to an endpoint method
 * ({@code send(Publisher)}, {@code put(Publisher)}). The subscriber is captured by handing the method a publisher
 * that records who subscribes; the TCK then drives it. Each subscriber gets a fresh connected pair.
 *
 * @param <T> the element type the endpoint consumes
 */
public abstract class EndpointSubscriberTck<T> extends SubscriberBlackboxVerification<T> {

    private Transport server;
    private Transport client;
    private final List<Pair> pairs = new ArrayList<>();

    protected EndpointSubscriberTck() {
        super(new TestEnvironment(2_000, 500));
    }

    protected abstract Transport openTransport(TransportConfig config);

    protected abstract String bindAddress(String name);

    /** Prepares the fresh pair and subscribes the endpoint method under test to {@code source}. */
    protected abstract void consume(Pair pair, Publisher<T> source);

    /** Releases what the subclass made, after every pair is closed. */
    protected void cleanUp() {
    }

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
        cleanUp();
    }

    /** The pair the latest subscriber belongs to. */
    protected Pair latest() {
        return pairs.getLast();
    }

    @Override
    @SuppressWarnings("unchecked")
    public Subscriber<T> createSubscriber() {
        Pair p = Pair.connect(server, client, bindAddress("tck-sub"));
        pairs.add(p);
        AtomicReference<Subscriber<? super T>> captured = new AtomicReference<>();
        consume(p, captured::set);
        return (Subscriber<T>) captured.get();
    }
}
