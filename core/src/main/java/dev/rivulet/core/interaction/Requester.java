package dev.rivulet.core.interaction;

import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The requesting side of an interaction session: RSocket's four interaction models, each a stream of its own on one
 * Rivulet endpoint, with its own credits, cancellation and error.
 *
 * <p>Nothing is sent before subscription, and each subscription is a new request. Payloads that arrive are lent for
 * the duration of {@code onNext}, as {@code Endpoint.receive()} buffers are ({@link Payload}). Cancelling (directly,
 * through {@code take}, {@code timeout}, ...) tells the responder at once, which stops producing for that stream; a
 * failure of one request ends that request only.
 */
public interface Requester extends Disposable {

    /** Sends {@code payload} and expects nothing back: completes once the request is on its way. */
    Mono<Void> fireAndForget(Payload payload);

    /** One answer (or none: completes empty), or the responder's error. */
    Mono<Payload> requestResponse(Payload payload);

    /** A stream of answers; the subscriber's demand travels to the responder as credits for this stream. */
    Flux<Payload> requestStream(Payload payload);

    /**
     * A stream each way: {@code payloads} go to the responder as fast as it grants credits (its first travels with
     * the request), and its answers come back under this subscriber's demand.
     */
    Flux<Payload> requestChannel(Publisher<Payload> payloads);

    /** Completes when the session ends (its endpoint closed). */
    Mono<Void> onClose();
}
