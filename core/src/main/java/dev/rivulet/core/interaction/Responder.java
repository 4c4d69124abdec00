package dev.rivulet.core.interaction;

import dev.rivulet.core.error.RequestRejectedException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * What answers requests: the four interaction models of {@link Requester}, seen from the other side. A model not
 * overridden rejects its requests ({@link RequestRejectedException}, not retryable). {@link Router} builds one that
 * dispatches on the route in each request's metadata.
 *
 * <p>Handlers are called on the endpoint's polling thread and must not block it: return a publisher and let it do
 * the work. The request payload stays valid until the returned publisher terminates or is cancelled (no retain
 * needed); payloads of a channel's inbound stream are lent for their {@code onNext}. The returned publisher is
 * subscribed at once, and its demand comes from the requester's credits; its error ends this request only, and
 * reaches the requester as {@link dev.rivulet.core.error.RemoteApplicationException}.
 */
public interface Responder {

    default Mono<Void> fireAndForget(Payload request) {
        return Mono.error(unsupported("fire-and-forget", request));
    }

    default Mono<Payload> requestResponse(Payload request) {
        return Mono.error(unsupported("request-response", request));
    }

    default Flux<Payload> requestStream(Payload request) {
        return Flux.error(unsupported("request-stream", request));
    }

    /**
     * {@code first}: the payload the channel was opened with (it carries the route); {@code rest}: the requester's
     * payloads after it, sent by the requester as fast as whoever subscribes {@code rest} asks for them (not
     * subscribing it leaves the requester waiting; cancelling it tells the requester to stop).
     */
    default Flux<Payload> requestChannel(Payload first, Flux<Payload> rest) {
        return Flux.error(unsupported("request-channel", first));
    }

    private static RequestRejectedException unsupported(String model, Payload request) {
        String route = request.routeName();
        return new RequestRejectedException("no " + model + " handler"
                + (route == null ? "" : " for route '" + route + "'"), false);
    }
}
