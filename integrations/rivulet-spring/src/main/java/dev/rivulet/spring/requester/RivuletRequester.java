package dev.rivulet.spring.requester;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.interaction.InteractionOptions;
import dev.rivulet.core.interaction.Interactions;
import dev.rivulet.core.interaction.Metadata;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.interaction.Requester;
import dev.rivulet.spring.codec.RivuletStrategies;
import org.jspecify.annotations.Nullable;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.core.ResolvableType;
import org.springframework.util.MimeType;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SynchronousSink;

import java.util.Objects;

/**
 * Requests with objects instead of payloads, as {@code RSocketRequester} does:
 * {@code requester.route("greet.{name}", "ada").data(request).retrieveMono(Greeting.class)}. Data is encoded with the
 * strategies' encoders as the {@linkplain #dataContentType(MimeType) data content type} (JSON unless set), which the
 * request's metadata names beside the route; answers are decoded as the content type their metadata names.
 *
 * <p>Immutable. Nothing is sent before subscription, and each subscription is a new request (encoded anew), so
 * {@code retry} works. Answers are decoded in their {@code onNext}, while the received payload is valid.
 */
public final class RivuletRequester {

    private final Requester requester;
    private final RivuletStrategies strategies;
    private final MimeType dataContentType;

    private RivuletRequester(Requester requester, RivuletStrategies strategies, MimeType dataContentType) {
        this.requester = requester;
        this.strategies = strategies;
        this.dataContentType = dataContentType;
    }

    /** Requests over {@code requester} with {@code strategies}' codecs, data as their default content type. */
    public static RivuletRequester create(Requester requester, RivuletStrategies strategies) {
        return new RivuletRequester(Objects.requireNonNull(requester, "requester"),
                Objects.requireNonNull(strategies, "strategies"), strategies.defaultContentType());
    }

    /**
     * Requesters that connect on their own, as {@code RSocketRequester.Builder} makes them: each
     * {@link Builder#connect(String)} connects {@code client} to an address and requests over that connection with
     * {@code strategies} bound to its memory ({@link RivuletStrategies#withMemory}).
     */
    public static Builder builder(RivuletClient client, RivuletStrategies strategies) {
        return new Builder(Objects.requireNonNull(client, "client"), Objects.requireNonNull(strategies, "strategies"),
                InteractionOptions.defaults(), null);
    }

    /** This requester, with data encoded as {@code contentType} (for instance {@link RivuletStrategies#CBOR}). */
    public RivuletRequester dataContentType(MimeType contentType) {
        return new RivuletRequester(requester, strategies, Objects.requireNonNull(contentType, "contentType"));
    }

    public MimeType dataContentType() {
        return dataContentType;
    }

    /** The requester underneath, for payload-level requests and for disposing of the session. */
    public Requester requester() {
        return requester;
    }

    public RivuletStrategies strategies() {
        return strategies;
    }

    /**
     * A request to {@code route}, whose {@code {...}} placeholders are replaced, in order, by {@code variables}
     * ({@code route("orders.{id}.lines", 42)} requests {@code "orders.42.lines"}).
     */
    public RequestSpec route(String route, Object... variables) {
        return new RequestSpec(RouteTemplate.expand(route, variables), null, null);
    }

    /** One request to one route: {@link #data} to give it data, then one of the terminal methods to send it. */
    public final class RequestSpec {

        private final String route;
        private final @Nullable Object value;
        /** The channel's payloads' type when the data is a publisher of them, else null. */
        private final @Nullable ResolvableType channelType;

        private RequestSpec(String route, @Nullable Object value, @Nullable ResolvableType channelType) {
            this.route = route;
            this.value = value;
            this.channelType = channelType;
        }

        /** This request with {@code value} as its data (no data: an empty payload). */
        public RequestSpec data(Object value) {
            return new RequestSpec(route, Objects.requireNonNull(value, "value"), null);
        }

        /** This request as a request-channel: each of {@code values} is one payload ({@link #retrieveFlux}). */
        public <T> RequestSpec data(Publisher<T> values, Class<T> type) {
            return new RequestSpec(route, Objects.requireNonNull(values, "values"), ResolvableType.forClass(type));
        }

        /** Fire-and-forget: completes once the request is on its way. */
        public Mono<Void> send() {
            return Mono.defer(() -> requester.fireAndForget(single()));
        }

        /** Request-response, the answer decoded as {@code type} (completes empty without one). */
        public <T> Mono<T> retrieveMono(Class<T> type) {
            return retrieveMono(ResolvableType.forClass(type));
        }

        public <T> Mono<T> retrieveMono(ParameterizedTypeReference<T> type) {
            return retrieveMono(ResolvableType.forType(type));
        }

        private <T> Mono<T> retrieveMono(ResolvableType type) {
            return Mono.defer(() -> requester.requestResponse(single()))
                    .handle((answer, sink) -> decode(answer, type, sink));
        }

        /** Request-stream, or request-channel when the data is a publisher: the answers decoded as {@code type}. */
        public <T> Flux<T> retrieveFlux(Class<T> type) {
            return retrieveFlux(ResolvableType.forClass(type));
        }

        public <T> Flux<T> retrieveFlux(ParameterizedTypeReference<T> type) {
            return retrieveFlux(ResolvableType.forType(type));
        }

        private <T> Flux<T> retrieveFlux(ResolvableType type) {
            Flux<Payload> answers = channelType != null
                    ? Flux.defer(() -> requester.requestChannel(channel(channelType)))
                    : Flux.defer(() -> requester.requestStream(single()));
            return answers.handle((answer, sink) -> decode(answer, type, sink));
        }

        /** Decodes {@code answer} while it is lent (in its onNext); an answer decoding to nothing is skipped. */
        private <T> void decode(Payload answer, ResolvableType type, SynchronousSink<T> sink) {
            T decoded = strategies.decode(answer, type);
            if (decoded != null) {
                sink.next(decoded);
            }
        }

        private Metadata metadata() {
            return Metadata.builder().route(route).contentType(dataContentType.toString()).build();
        }

        /** The one payload of a request that is not a channel. */
        private Payload single() {
            if (channelType != null) {
                throw new IllegalStateException("data given as a publisher: only retrieveFlux opens a channel");
            }
            Metadata metadata = metadata();
            return value == null ? Payload.empty().metadata(metadata)
                    : strategies.encode(value, ResolvableType.forInstance(value), dataContentType, metadata);
        }

        /** A channel's payloads: the first carries the route and content type, which hold for all of them. */
        private Flux<Payload> channel(ResolvableType type) {
            assert value != null;
            Metadata first = metadata();
            return Flux.from((Publisher<?>) value).index().map(indexed -> strategies.encode(indexed.getT2(), type,
                    dataContentType, indexed.getT1() == 0 ? first : Metadata.EMPTY));
        }
    }

    /**
     * Connects requesters: an immutable recipe (each setter returns a new builder) whose {@link #connect(String)}
     * opens a connection and an interaction session on it. Disposing of the requester's
     * {@linkplain RivuletRequester#requester() session} closes its connection.
     */
    public static final class Builder {

        private final RivuletClient client;
        private final RivuletStrategies strategies;
        private final InteractionOptions options;
        private final @Nullable MimeType dataContentType;

        private Builder(RivuletClient client, RivuletStrategies strategies, InteractionOptions options,
                        @Nullable MimeType dataContentType) {
            this.client = client;
            this.strategies = strategies;
            this.options = options;
            this.dataContentType = dataContentType;
        }

        /** Sessions with {@code options} (observations, context entries that travel, leases). */
        public Builder options(InteractionOptions options) {
            return new Builder(client, strategies, Objects.requireNonNull(options, "options"), dataContentType);
        }

        /** Requesters encoding data as {@code contentType} rather than the strategies' default content type. */
        public Builder dataContentType(MimeType contentType) {
            return new Builder(client, strategies, options, Objects.requireNonNull(contentType, "contentType"));
        }

        /** Connects to {@code address} on subscription; a requester over the new connection. */
        public Mono<RivuletRequester> connect(String address) {
            return client.remoteAddress(address).connect().map(this::over);
        }

        /** {@link #connect(String)}, waited for (within the client's connect timeout): for set-up code only. */
        public RivuletRequester connectNow(String address) {
            return over(client.remoteAddress(address).connectNow());
        }

        private RivuletRequester over(Endpoint endpoint) {
            try {
                RivuletRequester requester = create(Interactions.client(endpoint, options),
                        strategies.withMemory(endpoint.memory()));
                return dataContentType == null ? requester : requester.dataContentType(dataContentType);
            } catch (RuntimeException e) {
                endpoint.dispose();
                throw e;
            }
        }
    }
}
