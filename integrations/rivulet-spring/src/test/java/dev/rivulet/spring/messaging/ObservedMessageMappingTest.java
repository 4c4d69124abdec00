package dev.rivulet.spring.messaging;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.interaction.InteractionOptions;
import dev.rivulet.core.interaction.Interactions;
import dev.rivulet.spring.codec.RivuletStrategies;
import dev.rivulet.spring.requester.RivuletRequester;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A {@code @MessageMapping} method of an observed server runs with the observation of serving its request current,
 * so thread-local instrumentation in its body (a tracer's current span) belongs to that request.
 */
class ObservedMessageMappingTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final Transport transport = Transports.open("local", TransportConfig.defaults());

    @AfterEach
    void close() {
        transport.dispose();
    }

    @Controller
    static class Introspecting {

        private final ObservationRegistry registry;

        Introspecting(ObservationRegistry registry) {
            this.registry = registry;
        }

        @MessageMapping("current")
        Mono<String> current() {
            Observation current = registry.getCurrentObservation();
            return Mono.just(current == null ? "none" : current.getContext().getContextualName());
        }
    }

    @Test
    void theMethodRunsWithTheRequestsObservationCurrent() {
        ObservationRegistry registry = ObservationRegistry.create();
        registry.observationConfig().observationHandler(context -> true);
        RivuletStrategies strategies = RivuletStrategies.create(transport.memory());
        RivuletMessageHandler handler = new RivuletMessageHandler(strategies);
        handler.setHandlers(List.of(new Introspecting(registry)));
        handler.afterPropertiesSet();
        InteractionOptions observed = InteractionOptions.defaults().observations(registry);
        RivuletServer.BoundServer server = RivuletServer.create().runOn(transport).bindAddress("local://observed")
                .handle(peer -> Interactions.server(peer, handler.responder(), observed).onClose())
                .bindNow();
        Endpoint endpoint = RivuletClient.create().runOn(transport).remoteAddress(server.address()).connectNow();
        try {
            RivuletRequester requester = RivuletRequester.create(Interactions.client(endpoint), strategies);
            assertThat(requester.route("current").retrieveMono(String.class).block(TIMEOUT))
                    .isEqualTo("request-response current");
            assertThat(registry.getCurrentObservation()).as("its scope closed again").isNull();
        } finally {
            endpoint.dispose();
            server.disposeNow(TIMEOUT);
        }
    }
}
