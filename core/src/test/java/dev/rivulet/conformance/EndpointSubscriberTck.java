package dev.rivulet.conformance;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscriber;
import org.reactivestreams.tck.SubscriberBlackboxVerification;
import org.reactivestreams.tck.TestEnvironment;
import org.testng.annotations.AfterClass;
import org.testng.annotations.BeforeClass;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Reactive Streams TCK subscriber rules on what subscribes to a {@code Publisher} handed to an endpoint method
 * ({@code send(Publisher)}, {@code put(Publisher)}). The subscriber is captured by handing the method a publisher
 * that records who subscribes; the TCK then drives it. Each subscriber gets a fresh connected pair.
 *
 * @param <T> the element type the endpoint consumes
 */
public abstract class EndpointSubscriberTck<T> extends SubscriberBlackboxVerification<T> {

    private final TckPairs transports = new TckPairs(this::openTransport);

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
        transports.open();
    }

    @AfterClass(alwaysRun = true)
    public void closeTransports() {
        transports.close();
        cleanUp();
    }

    /** The pair the latest subscriber belongs to. */
    protected Pair latest() {
        return transports.latest();
    }

    @Override
    @SuppressWarnings("unchecked")
    public Subscriber<T> createSubscriber() {
        Pair p = transports.connect(bindAddress("tck-sub"));
        AtomicReference<Subscriber<? super T>> captured = new AtomicReference<>();
        consume(p, captured::set);
        return (Subscriber<T>) captured.get();
    }
}
