package dev.rivulet.docs;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.error.RequestRejectedException;
import dev.rivulet.core.interaction.InteractionOptions;
import dev.rivulet.core.interaction.Interactions;
import dev.rivulet.core.interaction.Lease;
import dev.rivulet.core.interaction.Metadata;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.interaction.Requester;
import dev.rivulet.core.interaction.Router;
import dev.rivulet.core.memory.LeakDetector;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.retry.Retry;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The examples of {@code docs/interaction-models.md}, compiled and run (regions between {@code // snippet:begin NAME}
 * and {@code // snippet:end}, checked against the page by {@code DocsSnippetsTest}).
 */
class InteractionModelsDocsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Transport transport;
    private RivuletServer.BoundServer server;
    private Endpoint endpoint;

    @BeforeEach
    void open() {
        LeakDetector.enable();
        LeakDetector.reset();
        transport = Transports.open("local", TransportConfig.defaults());
    }

    @AfterEach
    void close() {
        try {
            if (endpoint != null) {
                endpoint.dispose();
            }
            if (server != null) {
                server.disposeNow(TIMEOUT);
            }
            transport.dispose();
            LeakDetector.awaitNoLeaks(TIMEOUT);
        } finally {
            LeakDetector.disable();
        }
    }

    @Test
    void serveAndRequest() {
        Map<String, String> store = new ConcurrentHashMap<>(Map.of("greeting", "hello"));
        // snippet:begin serve
        Router kv = Router.builder()
                .requestResponse("get", request -> Mono.justOrEmpty(store.get(request.dataUtf8()))
                        .map(Payload::of))
                .fireAndForget("put", request -> {
                    String[] kvPair = request.dataUtf8().split("=", 2);
                    store.put(kvPair[0], kvPair[1]);
                    return Mono.empty();
                })
                .requestStream("keys", request -> Flux.fromIterable(store.keySet())
                        .filter(k -> k.startsWith(request.dataUtf8()))
                        .map(Payload::of))
                .requestChannel("sum", (first, rest) -> rest
                        .map(p -> Long.parseLong(p.dataUtf8()))
                        .reduce(Long.parseLong(first.dataUtf8()), Long::sum)
                        .map(sum -> Payload.of(Long.toString(sum)))
                        .flux())
                .build();

        RivuletServer.BoundServer server = RivuletServer.create()
                .runOn(transport)
                .bindAddress("local://kv")
                .handle(peer -> Interactions.server(peer, kv).onClose())
                .bindNow();
        // snippet:end
        this.server = server;

        // snippet:begin request
        Endpoint endpoint = RivuletClient.create().runOn(transport).remoteAddress("local://kv").connectNow();
        Requester kvClient = Interactions.client(endpoint);

        String greeting = kvClient.requestResponse(Payload.of("greeting").route("get"))
                .map(Payload::dataUtf8)
                .block();

        kvClient.fireAndForget(Payload.of("farewell=bye").route("put")).block();

        List<String> keys = kvClient.requestStream(Payload.of("").route("keys"))
                .map(Payload::dataUtf8)
                .take(10)
                .collectList()
                .block();

        String sum = kvClient.requestChannel(Flux.range(1, 100)
                        .map(i -> Payload.of(Integer.toString(i)).route("sum")))
                .map(Payload::dataUtf8)
                .blockLast();
        // snippet:end
        this.endpoint = endpoint;
        assertThat(greeting).isEqualTo("hello");
        assertThat(keys).containsExactlyInAnyOrder("greeting", "farewell");
        assertThat(sum).isEqualTo("5050");

        // snippet:begin lent
        List<Payload> kept = kvClient.requestStream(Payload.of("").route("keys")).collectList().block();
        // each payload was lent for its onNext only: reading it now fails
        assertThatThrownBy(() -> kept.getFirst().dataUtf8()).isInstanceOf(
                dev.rivulet.core.error.InvalidMemoryException.class);

        List<String> copied = kvClient.requestStream(Payload.of("").route("keys"))
                .map(Payload::dataUtf8)      // copy out while lent
                .collectList()
                .block();
        // snippet:end
        assertThat(copied).hasSize(2);

        // snippet:begin errors
        Mono<String> missingRoute = kvClient.requestResponse(Payload.of("x").route("delete"))
                .map(Payload::dataUtf8)
                .onErrorResume(RequestRejectedException.class, e -> Mono.just("no such route"));
        // snippet:end
        assertThat(missingRoute.block(TIMEOUT)).isEqualTo("no such route");
    }

    @Test
    void metadataContextAndLeases() {
        ObservationRegistry registry = ObservationRegistry.create();
        // snippet:begin options
        InteractionOptions options = InteractionOptions.defaults()
                .propagateContext("tenant")            // these Context entries travel, nothing else
                .observations(registry)                // rivulet.requests on both sides, trace in the headers
                .lease(Lease.every(Duration.ofSeconds(1), 1_000)); // admit 1 000 requests a second

        Router router = Router.builder()
                .requestResponse("whoami", request -> Mono.deferContextual(ctx -> Mono.just(Payload.of(
                        ctx.getOrDefault("tenant", "nobody") + " via " + request.metadata().contentType()))))
                .build();
        // snippet:end
        server = RivuletServer.create().runOn(transport).bindAddress("local://tenants")
                .handle(peer -> Interactions.server(peer, router, options).onClose())
                .bindNow();
        endpoint = RivuletClient.create().runOn(transport).remoteAddress("local://tenants").connectNow();
        Requester requester = Interactions.client(endpoint, new dev.rivulet.core.interaction.Responder() { },
                InteractionOptions.defaults().propagateContext("tenant"));
        // snippet:begin metadata
        Metadata metadata = Metadata.builder()
                .route("whoami")
                .contentType("text/plain")
                .header("x-request-id", "42")
                .build();
        String answer = requester.requestResponse(Payload.of("?").metadata(metadata))
                .map(Payload::dataUtf8)
                .contextWrite(ctx -> ctx.put("tenant", "acme"))
                .retryWhen(Retry.backoff(3, Duration.ofMillis(100))
                        .filter(e -> e instanceof RequestRejectedException r && r.isRetryable()))
                .block();
        // snippet:end
        assertThat(answer).isEqualTo("acme via text/plain");
    }
}
