package dev.rivulet.conformance;

import dev.rivulet.core.interaction.Interactions;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.interaction.Router;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;

/**
 * TCK subscriber rules on what subscribes to the publisher handed to {@code Requester.requestChannel}: the
 * responder takes every payload and answers nothing until the requester's stream ends.
 */
public abstract class RequestChannelSubscriberTck extends EndpointSubscriberTck<Payload> {

    @Override
    protected void consume(Pair pair, Publisher<Payload> source) {
        Interactions.server(pair.server(), Router.builder()
                .requestChannel("drain", (first, rest) -> rest.thenMany(Flux.<Payload>empty()))
                .build());
        Interactions.client(pair.client()).requestChannel(source).subscribe(p -> { }, e -> { });
    }

    @Override
    public Payload createElement(int element) {
        return Payload.of("element " + element).route("drain");
    }
}
