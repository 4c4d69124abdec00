package dev.rivulet.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.rivulet.core.error.RequestRejectedException;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.interaction.Responder;

/**
 * A responder that knows the requests it is answering, so that a graceful shutdown waits for those and no longer:
 * an interaction session always has a receive posted, so closing its endpoint gracefully would wait for the whole
 * timeout. Once draining, new requests are refused as retryable (as a web server answers 503 while it shuts down).
 */
final class DrainingResponder implements Responder {

    private static final Duration POLL = Duration.ofMillis(10);

    private final Responder delegate;
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean draining;

    DrainingResponder(Responder delegate) {
        this.delegate = delegate;
    }

    /** Refuses new requests from now on; completes once the requests already taken have finished. */
    Mono<Void> drain() {
        draining = true;
        return Flux.interval(Duration.ZERO, POLL).filter(tick -> inFlight.get() == 0).next().then();
    }

    /** Requests being answered now. */
    int inFlight() {
        return inFlight.get();
    }

    @Override
    public Mono<Void> fireAndForget(Payload request) {
        return Mono.defer(() -> admit()
                ? Mono.defer(() -> delegate.fireAndForget(request)).doFinally(s -> done())
                : refused());
    }

    @Override
    public Mono<Payload> requestResponse(Payload request) {
        return Mono.defer(() -> admit()
                ? Mono.defer(() -> delegate.requestResponse(request)).doFinally(s -> done())
                : refused());
    }

    @Override
    public Flux<Payload> requestStream(Payload request) {
        return Flux.defer(() -> admit()
                ? Flux.defer(() -> delegate.requestStream(request)).doFinally(s -> done())
                : refused());
    }

    @Override
    public Flux<Payload> requestChannel(Payload first, Flux<Payload> rest) {
        return Flux.defer(() -> admit()
                ? Flux.defer(() -> delegate.requestChannel(first, rest)).doFinally(s -> done())
                : refused());
    }

    /** Counts a request in unless draining; the inner defer turns a handler's throw into an error, counted out. */
    private boolean admit() {
        if (draining) {
            return false;
        }
        inFlight.incrementAndGet();
        return true;
    }

    private void done() {
        inFlight.decrementAndGet();
    }

    private static <T> Mono<T> refused() {
        return Mono.error(new RequestRejectedException("the server is shutting down", true));
    }

}
