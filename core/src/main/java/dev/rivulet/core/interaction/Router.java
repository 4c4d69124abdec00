package dev.rivulet.core.interaction;

import dev.rivulet.core.error.RequestRejectedException;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * A {@link Responder} that dispatches each request on the route in its metadata ({@link Metadata#route()}), as
 * Spring's {@code @MessageMapping} routes RSocket requests: one handler per route and interaction model. A request
 * without a handler for its route and model goes to the fallback responder, which by default rejects it
 * ({@link RequestRejectedException}, not retryable).
 */
public final class Router implements Responder {

    private final Map<String, Function<Payload, Mono<Void>>> fireAndForget;
    private final Map<String, Function<Payload, Mono<Payload>>> requestResponse;
    private final Map<String, Function<Payload, Flux<Payload>>> requestStream;
    private final Map<String, BiFunction<Payload, Flux<Payload>, Flux<Payload>>> requestChannel;
    private final Responder fallback;

    private Router(Builder b) {
        this.fireAndForget = Map.copyOf(b.fireAndForget);
        this.requestResponse = Map.copyOf(b.requestResponse);
        this.requestStream = Map.copyOf(b.requestStream);
        this.requestChannel = Map.copyOf(b.requestChannel);
        this.fallback = b.fallback;
    }

    public static Builder builder() {
        return new Builder();
    }

    @Override
    public Mono<Void> fireAndForget(Payload request) {
        var h = handler(fireAndForget, request);
        return h != null ? h.apply(request) : fallback.fireAndForget(request);
    }

    @Override
    public Mono<Payload> requestResponse(Payload request) {
        var h = handler(requestResponse, request);
        return h != null ? h.apply(request) : fallback.requestResponse(request);
    }

    @Override
    public Flux<Payload> requestStream(Payload request) {
        var h = handler(requestStream, request);
        return h != null ? h.apply(request) : fallback.requestStream(request);
    }

    @Override
    public Flux<Payload> requestChannel(Payload first, Flux<Payload> rest) {
        var h = handler(requestChannel, first);
        return h != null ? h.apply(first, rest) : fallback.requestChannel(first, rest);
    }

    private static <H> @Nullable H handler(Map<String, H> handlers, Payload request) {
        String route = request.routeName();
        return route == null ? null : handlers.get(route);
    }

    /** Registers handlers by route; a route may have one handler per interaction model. */
    public static final class Builder {

        private final Map<String, Function<Payload, Mono<Void>>> fireAndForget = new HashMap<>();
        private final Map<String, Function<Payload, Mono<Payload>>> requestResponse = new HashMap<>();
        private final Map<String, Function<Payload, Flux<Payload>>> requestStream = new HashMap<>();
        private final Map<String, BiFunction<Payload, Flux<Payload>, Flux<Payload>>> requestChannel =
                new HashMap<>();
        private Responder fallback = new Responder() {
        };

        private Builder() {
        }

        public Builder fireAndForget(String route, Function<Payload, Mono<Void>> handler) {
            put(fireAndForget, route, handler);
            return this;
        }

        public Builder requestResponse(String route, Function<Payload, Mono<Payload>> handler) {
            put(requestResponse, route, handler);
            return this;
        }

        public Builder requestStream(String route, Function<Payload, Flux<Payload>> handler) {
            put(requestStream, route, handler);
            return this;
        }

        /** {@code handler} gets the opening payload and the requester's payloads after it. */
        public Builder requestChannel(String route, BiFunction<Payload, Flux<Payload>, Flux<Payload>> handler) {
            put(requestChannel, route, handler);
            return this;
        }

        /** Answers the requests no route matches (by default: rejected). */
        public Builder fallback(Responder responder) {
            this.fallback = Objects.requireNonNull(responder, "responder");
            return this;
        }

        public Router build() {
            return new Router(this);
        }

        private static <H> void put(Map<String, H> handlers, String route, H handler) {
            Objects.requireNonNull(route, "route");
            Objects.requireNonNull(handler, "handler");
            if (handlers.putIfAbsent(route, handler) != null) {
                throw new IllegalArgumentException("route '" + route + "' has a handler for this model already");
            }
        }
    }
}
