package dev.rivulet.core.interaction;

import dev.rivulet.core.Endpoint;

import java.util.Objects;

/**
 * Turns an endpoint into an interaction session: requests and answers multiplexed as streams over its messages
 * (the interaction models of {@link Requester}), each stream with its own credits, cancellation and errors, the
 * endpoint's own credits still bounding the memory all of them use.
 *
 * <p>The session owns the endpoint's {@code receive()} and sends through it; the endpoint should carry nothing else.
 * Both sides may request and answer at once: the side that connected calls {@link #client}, the side that accepted
 * {@link #server}, so that their streams never share an id. The session ends when the endpoint closes; disposing
 * the returned {@link Requester} closes the endpoint.
 *
 * <pre>{@code
 * RivuletServer.create().bindAddress("local://kv")
 *     .handle(peer -> Interactions.server(peer, Router.builder()
 *             .requestResponse("get", request -> Mono.just(Payload.of(lookup(request.dataUtf8()))))
 *             .build()).onClose())
 *     .bindNow();
 * Requester kv = Interactions.client(RivuletClient.create().remoteAddress("local://kv").connectNow());
 * String value = kv.requestResponse(Payload.of("key").route("get")).map(Payload::dataUtf8).block();
 * }</pre>
 */
public final class Interactions {

    private Interactions() {
    }

    /** A session on an endpoint this side connected, rejecting whatever the peer requests. */
    public static Requester client(Endpoint endpoint) {
        return client(endpoint, InteractionOptions.defaults());
    }

    /** As {@link #client(Endpoint)}, with {@code options}. */
    public static Requester client(Endpoint endpoint, InteractionOptions options) {
        return client(endpoint, new Responder() {
        }, options);
    }

    /** A session on an endpoint this side connected, answering the peer's requests with {@code responder}. */
    public static Requester client(Endpoint endpoint, Responder responder) {
        return client(endpoint, responder, InteractionOptions.defaults());
    }

    /** As {@link #client(Endpoint, Responder)}, with {@code options}. */
    public static Requester client(Endpoint endpoint, Responder responder, InteractionOptions options) {
        return start(endpoint, true, responder, options);
    }

    /**
     * A session on an endpoint this side accepted, answering with {@code responder}; the returned requester sends
     * requests the other way.
     */
    public static Requester server(Endpoint endpoint, Responder responder) {
        return server(endpoint, responder, InteractionOptions.defaults());
    }

    /** As {@link #server(Endpoint, Responder)}, with {@code options}. */
    public static Requester server(Endpoint endpoint, Responder responder, InteractionOptions options) {
        return start(endpoint, false, responder, options);
    }

    private static Requester start(Endpoint endpoint, boolean connector, Responder responder,
                                   InteractionOptions options) {
        InteractionSession s = new InteractionSession(Objects.requireNonNull(endpoint, "endpoint"), connector,
                Objects.requireNonNull(responder, "responder"), Objects.requireNonNull(options, "options"));
        s.start();
        return s;
    }
}
