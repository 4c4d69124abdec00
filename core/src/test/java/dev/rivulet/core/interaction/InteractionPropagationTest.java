package dev.rivulet.core.interaction;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** Reactor Context entries and Micrometer observations travel with requests and are restored for the handler. */
class InteractionPropagationTest {

    @Test
    void chosenContextEntriesReachTheHandlersContextAndOthersDoNot() {
        Router router = Router.builder()
                .requestResponse("ctx", p -> Mono.deferContextual(c -> Mono.just(Payload.of(
                        c.getOrDefault("tenant", "-") + "/" + c.getOrDefault("secret", "-")))))
                .requestStream("ctx", p -> Flux.deferContextual(c -> Flux.just(Payload.of(String.valueOf(c.<Object>get("tenant"))))))
                .build();
        InteractionOptions options = InteractionOptions.defaults().propagateContext("tenant");
        try (InteractionSessions s = new InteractionSessions(peer -> Interactions.server(peer, router, options))) {
            Requester client = Interactions.client(s.clientEndpoint, new Responder() { }, options);
            StepVerifier.create(client.requestResponse(Payload.of("").route("ctx")).map(Payload::dataUtf8)
                            .contextWrite(c -> c.put("tenant", "acme").put("secret", "s3cr3t")))
                    .expectNext("acme/-")
                    .verifyComplete();
            StepVerifier.create(client.requestStream(Payload.of("").route("ctx")).map(Payload::dataUtf8)
                            .contextWrite(c -> c.put("tenant", 42)))
                    .expectNext("42")
                    .verifyComplete();
        }
    }

    @Test
    void anObservationOnEachSideWithTheTraceCarriedInTheHeaders() {
        List<String> events = new CopyOnWriteArrayList<>();
        ObservationRegistry registry = ObservationRegistry.create();
        // What a tracing bridge does: inject a trace header on the sender, extract it on the receiver.
        registry.observationConfig().observationHandler(new ObservationHandler<SenderContext<Object>>() {
            @Override
            public void onStart(SenderContext<Object> context) {
                context.getSetter().set(context.getCarrier(), "traceparent", "00-trace-span-01");
                events.add("sender start " + context.getContextualName()
                        + " parent=" + (context.getParentObservation() != null));
            }

            @Override
            public void onStop(SenderContext<Object> context) {
                events.add("sender stop");
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return context instanceof SenderContext;
            }
        });
        registry.observationConfig().observationHandler(new ObservationHandler<ReceiverContext<Object>>() {
            @Override
            public void onStart(ReceiverContext<Object> context) {
                events.add("receiver start " + context.getContextualName() + " traceparent="
                        + context.getGetter().get(context.getCarrier(), "traceparent"));
            }

            @Override
            public void onStop(ReceiverContext<Object> context) {
                events.add("receiver stop");
            }

            @Override
            public boolean supportsContext(Observation.Context context) {
                return context instanceof ReceiverContext;
            }
        });
        Router router = Router.builder()
                .requestResponse("traced", p -> Mono.deferContextual(c -> Mono.just(Payload.of(
                        String.valueOf(c.hasKey(Propagation.OBSERVATION_KEY))))))
                .build();
        InteractionOptions options = InteractionOptions.defaults().observations(registry);
        try (InteractionSessions s = new InteractionSessions(peer -> Interactions.server(peer, router, options))) {
            Requester client = Interactions.client(s.clientEndpoint, new Responder() { }, options);
            Observation parent = Observation.start("caller", registry);
            StepVerifier.create(client.requestResponse(Payload.of("").route("traced")).map(Payload::dataUtf8)
                            .contextWrite(c -> c.put(Propagation.OBSERVATION_KEY, parent)))
                    .expectNext("true")
                    .verifyComplete();
            parent.stop();
        }
        assertThat(events).contains("sender start request-response traced parent=true",
                "receiver start request-response traced traceparent=00-trace-span-01", "receiver stop",
                "sender stop");
        assertThat(events).as("each side's observation stops once").filteredOn(e -> e.endsWith("stop"))
                .containsExactlyInAnyOrder("sender stop", "receiver stop");
    }
}
