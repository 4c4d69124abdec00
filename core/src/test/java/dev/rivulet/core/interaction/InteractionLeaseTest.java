package dev.rivulet.core.interaction;

import dev.rivulet.core.error.RequestRejectedException;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/** A responder's leases bound what it admits; a requester fails what they do not cover at once, retryably. */
class InteractionLeaseTest {

    private static final Router ECHO = Router.builder()
            .requestResponse("echo", p -> Mono.just(Payload.of(p.dataUtf8())))
            .build();

    @Test
    void requestsBeyondTheLeaseFailAtOnceAndRetryably() {
        Sinks.Many<Lease> leases = Sinks.many().replay().all();
        leases.tryEmitNext(new Lease(Duration.ofMinutes(1), 3));
        try (InteractionSessions s = new InteractionSessions(peer -> Interactions.server(peer, ECHO,
                InteractionOptions.defaults().lease(leases.asFlux())))) {
            Requester client = Interactions.client(s.clientEndpoint);
            // the lease reaches the requester with the first exchange at the latest
            StepVerifier.create(client.requestResponse(Payload.of("1").route("echo"))).expectNextCount(1)
                    .verifyComplete();
            StepVerifier.create(Flux.range(0, 5)
                            .concatMap(i -> client.requestResponse(Payload.of("x").route("echo"))
                                    .map(p -> "ok")
                                    .onErrorResume(RequestRejectedException.class, e -> Mono.just(
                                            e.isRetryable() ? "retry later" : "rejected")))
                            .collectList())
                    .assertNext(l -> assertThat(l).containsExactly("ok", "ok", "retry later", "retry later",
                            "retry later"))
                    .verifyComplete();
            // a new lease admits again
            leases.tryEmitNext(new Lease(Duration.ofMinutes(1), 1));
            StepVerifier.create(Flux.defer(() -> client.requestResponse(Payload.of("again").route("echo")))
                            .retryWhen(reactor.util.retry.Retry.fixedDelay(50, Duration.ofMillis(20))
                                    .filter(e -> e instanceof RequestRejectedException r && r.isRetryable()))
                            .map(Payload::dataUtf8))
                    .expectNext("again").verifyComplete();
        }
    }

    @Test
    void aResponderRejectsWhatItsLeaseDoesNotCoverEvenFromARequesterThatIgnoresIt() {
        try (InteractionSessions s = new InteractionSessions(peer -> Interactions.server(peer, ECHO,
                InteractionOptions.defaults().lease(Flux.just(new Lease(Duration.ofMillis(1), 100)))))) {
            Requester client = Interactions.client(s.clientEndpoint);
            StepVerifier.create(Mono.delay(Duration.ofMillis(50))
                            .then(client.requestResponse(Payload.of("late").route("echo"))))
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(RequestRejectedException.class)
                            .hasMessageContaining("lease"))
                    .verify(InteractionSessions.TIMEOUT);
        }
    }
}
