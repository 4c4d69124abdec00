package dev.rivulet.conformance;

import org.reactivestreams.Publisher;

/**
 * TCK subscriber rules on the subscriber of {@code Endpoint.send(Publisher<T>, maxMessageSize, encoder)}. The server
 * side drains everything.
 */
public abstract class ClaimedSendSubscriberTck extends EndpointSubscriberTck<Long> {

    @Override
    protected void consume(Pair pair, Publisher<Long> source) {
        pair.server().receive().subscribe(b -> { }, e -> { });
        pair.client().send(source, Long.BYTES, (seq, claim) -> {
            claim.putLong(0, seq);
            return Long.BYTES;
        }).subscribe(null, e -> { });
    }

    @Override
    public Long createElement(int element) {
        return (long) element;
    }
}
