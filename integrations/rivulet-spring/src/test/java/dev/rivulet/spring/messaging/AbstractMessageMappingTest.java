package dev.rivulet.spring.messaging;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.error.RemoteApplicationException;
import dev.rivulet.core.interaction.Interactions;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.interaction.Requester;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.spring.codec.RivuletStrategies;
import dev.rivulet.spring.requester.RivuletRequester;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.messaging.handler.annotation.DestinationVariable;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.stereotype.Controller;
import org.springframework.util.MimeType;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every interaction model through {@code @MessageMapping} methods over a real transport (each subclass names one),
 * with JSON and CBOR data: objects in, objects out, errors typed, and no registered buffer left behind.
 */
abstract class AbstractMessageMappingTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    static final AtomicInteger SERVERS = new AtomicInteger();

    record Greeting(String name, String text) {
    }

    record Count(int value) {
    }

    record Blob(String name, byte[] bytes) {
    }

    @Controller
    static class Greeter {

        final Sinks.Many<Greeting> recorded = Sinks.many().replay().all();

        @MessageMapping("greet.{language}")
        Mono<Greeting> greet(@DestinationVariable String language, Greeting request) {
            String hello = language.equals("fr") ? "bonjour" : "hello";
            return Mono.just(new Greeting(request.name(), hello + ", " + request.name()));
        }

        @MessageMapping("plain")
        Greeting plain(Greeting request) {
            return new Greeting(request.name(), "plainly " + request.text());
        }

        @MessageMapping("count")
        Flux<Count> count(Count upTo) {
            return Flux.range(1, upTo.value()).map(Count::new);
        }

        @MessageMapping("sum")
        Flux<Count> runningSum(Flux<Count> counts) {
            return counts.scan(0, (sum, c) -> sum + c.value()).skip(1).map(Count::new);
        }

        @MessageMapping("record")
        void record(Greeting greeting) {
            recorded.tryEmitNext(greeting);
        }

        @MessageMapping("fail")
        Mono<Greeting> fail(Greeting request) {
            return Mono.error(new IllegalStateException("no greeting for " + request.name()));
        }

        @MessageMapping("echo")
        Mono<Blob> echo(Blob blob) {
            return Mono.just(new Blob(blob.name() + "!", blob.bytes()));
        }

        @MessageMapping("text")
        String text(String text) {
            return text.toUpperCase();
        }
    }

    private Transport transport;
    private RivuletServer.BoundServer server;
    private Endpoint endpoint;
    private Requester client;
    private Greeter greeter;
    private RivuletStrategies strategies;

    static List<MimeType> contentTypes() {
        return List.of(RivuletStrategies.JSON, RivuletStrategies.CBOR);
    }

    /** The transport to run on (a test of an unavailable one skips, or fails where it is required). */
    abstract Transport openTransport();

    /** Where the server binds. */
    abstract String bindAddress();

    @BeforeEach
    void open() {
        transport = openTransport();
        LeakDetector.enable();
        LeakDetector.reset();
        strategies = RivuletStrategies.create(transport.memory());
        greeter = new Greeter();
        RivuletMessageHandler handler = new RivuletMessageHandler(strategies);
        handler.setHandlers(List.of(greeter));
        handler.afterPropertiesSet();
        server = RivuletServer.create()
                .runOn(transport)
                .bindAddress(bindAddress())
                .handle(peer -> Interactions.server(peer, handler.responder()).onClose())
                .bindNow();
        endpoint = RivuletClient.create().runOn(transport).remoteAddress(server.address()).connectNow();
        client = Interactions.client(endpoint);
    }

    @AfterEach
    void close() {
        try {
            client.dispose();
            server.disposeNow(TIMEOUT);
            LeakDetector.awaitNoLeaks(TIMEOUT);
            assertThat(transport.memory().buffers().outstanding()).as("pooled buffers not given back").isZero();
        } finally {
            transport.dispose();
            LeakDetector.disable();
        }
    }

    private RivuletRequester requester(MimeType contentType) {
        return RivuletRequester.create(client, strategies).dataContentType(contentType);
    }

    @Test
    void aRequesterBuilderConnectsAndEncodesIntoTheConnectionsMemory() {
        RivuletRequester.Builder builder = RivuletRequester.builder(RivuletClient.create().runOn(transport),
                RivuletStrategies.builder().build()).dataContentType(RivuletStrategies.CBOR);
        RivuletRequester connected = builder.connect(server.address()).block(TIMEOUT);
        try {
            assertThat(connected.strategies().dataBufferFactory().domain()).isSameAs(transport.memory());
            assertThat(connected.dataContentType()).isEqualTo(RivuletStrategies.CBOR);
            StepVerifier.create(connected.route("greet.{language}", "en").data(new Greeting("eve", "hi"))
                            .retrieveMono(Greeting.class))
                    .expectNext(new Greeting("eve", "hello, eve"))
                    .expectComplete()
                    .verify(TIMEOUT);
        } finally {
            connected.requester().dispose();
        }
    }

    @ParameterizedTest
    @MethodSource("contentTypes")
    void requestResponseWithARouteVariable(MimeType contentType) {
        StepVerifier.create(requester(contentType).route("greet.{language}", "fr")
                        .data(new Greeting("ada", "hi"))
                        .retrieveMono(Greeting.class))
                .expectNext(new Greeting("ada", "bonjour, ada"))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @ParameterizedTest
    @MethodSource("contentTypes")
    void requestResponseFromAMethodReturningAValue(MimeType contentType) {
        StepVerifier.create(requester(contentType).route("plain").data(new Greeting("bob", "put")).retrieveMono(
                        Greeting.class))
                .expectNext(new Greeting("bob", "plainly put"))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @ParameterizedTest
    @MethodSource("contentTypes")
    void requestStream(MimeType contentType) {
        StepVerifier.create(requester(contentType).route("count").data(new Count(100)).retrieveFlux(Count.class),
                        10)
                .expectNextCount(10)
                .thenRequest(90)
                .expectNextCount(89)
                .expectNext(new Count(100))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @ParameterizedTest
    @MethodSource("contentTypes")
    void requestChannel(MimeType contentType) {
        Flux<Count> counts = Flux.range(1, 50).map(Count::new);
        StepVerifier.create(requester(contentType).route("sum").data(counts, Count.class).retrieveFlux(Count.class))
                .expectNextCount(49)
                .expectNext(new Count(50 * 51 / 2))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @ParameterizedTest
    @MethodSource("contentTypes")
    void fireAndForget(MimeType contentType) {
        StepVerifier.create(requester(contentType).route("record").data(new Greeting("cy", "noted")).send())
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(greeter.recorded.asFlux().next())
                .expectNext(new Greeting("cy", "noted"))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @ParameterizedTest
    @MethodSource("contentTypes")
    void aFailingMethodReachesTheRequesterAsARemoteApplicationException(MimeType contentType) {
        StepVerifier.create(requester(contentType).route("fail").data(new Greeting("dee", "x"))
                        .retrieveMono(Greeting.class))
                .expectErrorSatisfies(e -> assertThat(e)
                        .isInstanceOf(RemoteApplicationException.class)
                        .hasMessageContaining("no greeting for dee"))
                .verify(TIMEOUT);
    }

    @ParameterizedTest
    @MethodSource("contentTypes")
    void largeDataTravelsBothWays(MimeType contentType) {
        byte[] bytes = new byte[64 * 1024];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 31);
        }
        Blob answer = requester(contentType).route("echo").data(new Blob("big", bytes)).retrieveMono(Blob.class)
                .block(TIMEOUT);
        assertThat(answer).isNotNull();
        assertThat(answer.name()).isEqualTo("big!");
        assertThat(answer.bytes()).isEqualTo(bytes);
    }

    @Test
    void anUnknownRouteFailsThatRequestOnly() {
        RivuletRequester requester = requester(RivuletStrategies.JSON);
        StepVerifier.create(requester.route("nowhere").data(new Greeting("e", "x")).retrieveMono(Greeting.class))
                .expectErrorSatisfies(e -> assertThat(e)
                        .isInstanceOf(RemoteApplicationException.class)
                        .hasMessageContaining("nowhere"))
                .verify(TIMEOUT);
        StepVerifier.create(requester.route("plain").data(new Greeting("f", "after")).retrieveMono(Greeting.class))
                .expectNext(new Greeting("f", "plainly after"))
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void textIsSentAsItsUtf8Bytes() {
        RivuletRequester requester = requester(MimeType.valueOf("text/plain"));
        StepVerifier.create(requester.route("text").data("grüß").retrieveMono(String.class))
                .expectNext("GRÜSS")
                .expectComplete()
                .verify(TIMEOUT);
        Payload raw = Payload.of("raw").route("text");
        StepVerifier.create(client.requestResponse(raw).map(Payload::dataUtf8))
                .expectNext("RAW")
                .expectComplete()
                .verify(TIMEOUT);
    }
}
