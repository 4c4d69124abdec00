package dev.rivulet.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import dev.rivulet.core.error.RequestRejectedException;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.interaction.Responder;

/** Graceful shutdown at the request level: new requests refused, the ones taken waited for. */
class DrainingResponderTest {

    private final Sinks.Empty<Void> finish = Sinks.empty();
    private final DrainingResponder responder = new DrainingResponder(new Responder() {
        @Override
        public Mono<Payload> requestResponse(Payload request) {
            return finish.asMono().then(Mono.just(Payload.of("done")));
        }

        @Override
        public Flux<Payload> requestStream(Payload request) {
            return finish.asMono().thenMany(Flux.just(Payload.of("a"), Payload.of("b")));
        }
    });

    @Test
    void drainingWaitsForTheRequestsInFlightAndRefusesNewOnes() {
        StepVerifier answer = StepVerifier.create(responder.requestResponse(Payload.empty()))
                .expectNextCount(1).expectComplete().verifyLater();
        StepVerifier stream = StepVerifier.create(responder.requestStream(Payload.empty()))
                .expectNextCount(2).expectComplete().verifyLater();
        assertThat(responder.inFlight()).isEqualTo(2);

        StepVerifier drained = StepVerifier.create(responder.drain()).expectComplete().verifyLater();
        StepVerifier.create(responder.requestResponse(Payload.empty()))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(RequestRejectedException.class)
                        .satisfies(r -> assertThat(((RequestRejectedException) r).isRetryable()).isTrue()))
                .verify(Duration.ofSeconds(5));
        StepVerifier.create(responder.drain().timeout(Duration.ofMillis(100)))
                .expectError(java.util.concurrent.TimeoutException.class).verify(Duration.ofSeconds(5));

        finish.tryEmitEmpty();
        answer.verify(Duration.ofSeconds(5));
        stream.verify(Duration.ofSeconds(5));
        drained.verify(Duration.ofSeconds(5));
        assertThat(responder.inFlight()).isZero();
    }

    @Test
    void aCancelledRequestIsNoLongerInFlight() {
        responder.requestResponse(Payload.empty()).subscribe().dispose();
        assertThat(responder.inFlight()).isZero();
        StepVerifier.create(responder.drain()).expectComplete().verify(Duration.ofSeconds(5));
    }
}
