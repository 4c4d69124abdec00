package dev.rivulet.conformance;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.interaction.Interactions;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.interaction.Requester;
import dev.rivulet.core.interaction.Router;
import org.reactivestreams.Publisher;
import org.reactivestreams.tck.PublisherVerification;
import org.reactivestreams.tck.TestEnvironment;
import org.testng.annotations.AfterClass;
import org.testng.annotations.BeforeClass;
import reactor.core.publisher.Flux;

/**
 * Reactive Streams TCK publisher rules on what a {@link Requester} returns: {@code requestStream} (the responder
 * emits exactly {@code elements} payloads) and, with {@link #channel()}, {@code requestChannel} (the requester sends
 * {@code elements} payloads, the responder answers each). Each publisher gets a fresh connected pair.
 */
public abstract class InteractionPublisherTck extends PublisherVerification<Payload> {

    private final TckPairs transports = new TckPairs(this::openTransport);

    protected InteractionPublisherTck() {
        super(new TestEnvironment(2_000, 500));
    }

    protected abstract Transport openTransport(TransportConfig config);

    protected abstract String bindAddress(String name);

    /** Whether the publisher under test is a channel's answers rather than a request-stream's. */
    protected boolean channel() {
        return false;
    }

    @BeforeClass
    public void openTransports() {
        transports.open();
    }

    @AfterClass(alwaysRun = true)
    public void closeTransports() {
        transports.close();
    }

    @Override
    public Publisher<Payload> createPublisher(long elements) {
        Pair p = transports.connect(bindAddress("tck-interaction"));
        Interactions.server(p.server(), Router.builder()
                .requestStream("n", r -> Flux.range(0, Integer.parseInt(r.dataUtf8()))
                        .map(i -> Payload.of(Integer.toString(i))))
                .requestChannel("echo", (first, rest) -> Flux.concat(Flux.just(first.dataUtf8()),
                                rest.map(Payload::dataUtf8)).map(Payload::of))
                .build());
        Requester requester = Interactions.client(p.client());
        if (!channel()) {
            return requester.requestStream(Payload.of(Long.toString(elements)).route("n"));
        }
        if (elements == 0) {
            return requester.requestChannel(Flux.empty());
        }
        return requester.requestChannel(Flux.range(0, (int) elements).map(i -> Payload.of("e" + i).route("echo")));
    }

    @Override
    public Publisher<Payload> createFailedPublisher() {
        // A requester whose connection is over fails every request at once.
        Pair p = transports.connect(bindAddress("tck-interaction-failed"));
        Requester requester = Interactions.client(p.client());
        p.client().dispose();
        requester.onClose().block(Pair.TIMEOUT);
        return channel() ? requester.requestChannel(Flux.just(Payload.of("x")))
                : requester.requestStream(Payload.of("1"));
    }

    @Override
    public long maxElementsFromPublisher() {
        return 1_024;
    }
}
