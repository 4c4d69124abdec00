package dev.rivulet.conformance;

import dev.rivulet.core.memory.Buffer;
import org.reactivestreams.Publisher;

/**
 * TCK subscriber rules on {@code Endpoint.send(Publisher)}'s subscriber. The server side drains and releases
 * everything.
 */
public abstract class StreamingSendSubscriberTck extends EndpointSubscriberTck<Buffer> {

    @Override
    protected void consume(Pair pair, Publisher<Buffer> source) {
        pair.server().receive().subscribe(b -> { }, e -> { });
        pair.client().send(source).subscribe(null, e -> { });
    }

    @Override
    public Buffer createElement(int element) {
        return Messages.make(latest().client().memory(), element, 16);
    }
}
