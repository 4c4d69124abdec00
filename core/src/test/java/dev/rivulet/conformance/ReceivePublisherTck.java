package dev.rivulet.conformance;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.memory.Buffer;
import org.reactivestreams.Publisher;
import org.reactivestreams.tck.PublisherVerification;
import org.reactivestreams.tck.TestEnvironment;
import org.testng.annotations.AfterClass;
import org.testng.annotations.BeforeClass;
import reactor.core.publisher.Flux;

/**
 * Reactive Streams TCK publisher rules on {@code receive()}: the publisher under test is the server side of a
 * fresh pair whose client streams exactly {@code elements} messages and then closes, so {@code receive()}
 * completes after them.
 */
public abstract class ReceivePublisherTck extends PublisherVerification<Buffer> {

    private final TckPairs transports = new TckPairs(this::openTransport);

    protected ReceivePublisherTck() {
        super(new TestEnvironment(2_000, 500));
    }

    protected abstract Transport openTransport(TransportConfig config);

    protected abstract String bindAddress(String name);

    @BeforeClass
    public void openTransports() {
        transports.open();
    }

    @AfterClass(alwaysRun = true)
    public void closeTransports() {
        transports.close();
    }

    @Override
    public Publisher<Buffer> createPublisher(long elements) {
        Pair p = transports.connect(bindAddress("tck"));
        p.client().send(Flux.<Buffer, Long>generate(() -> 0L, (s, sink) -> {
                    if (s == elements) {
                        sink.complete();
                    } else {
                        sink.next(Messages.make(p.client().memory(), s, 16));
                    }
                    return s + 1;
                }))
                .doFinally(sig -> p.client().dispose())
                .subscribe(null, e -> { });
        return p.server().receive();
    }

    @Override
    public Publisher<Buffer> createFailedPublisher() {
        // A receive() on an endpoint whose connection already broke: the client's transport is disposed first.
        Transport doomed = openTransport(TransportConfig.defaults());
        Pair p = Pair.connect(transports.server(), doomed, bindAddress("tck-failed"));
        p.server().dispose();
        p.server().onClose().block(Pair.TIMEOUT);
        doomed.dispose();
        return null; // a locally closed endpoint completes receive() (graceful); there is no failed state to show
    }

    @Override
    public long maxElementsFromPublisher() {
        return 1_024;
    }
}
