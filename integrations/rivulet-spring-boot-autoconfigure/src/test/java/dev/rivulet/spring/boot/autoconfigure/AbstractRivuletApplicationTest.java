package dev.rivulet.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.context.annotation.Bean;
import org.springframework.messaging.handler.annotation.DestinationVariable;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.TransportResources;
import dev.rivulet.core.Transports;
import dev.rivulet.core.interaction.InteractionOptions;
import dev.rivulet.core.interaction.Interactions;
import dev.rivulet.core.progress.IdleStrategy;
import dev.rivulet.spring.boot.autoconfigure.health.RivuletServerHealthIndicator;
import dev.rivulet.spring.codec.RivuletStrategies;
import dev.rivulet.spring.requester.RivuletRequester;

/**
 * A Spring Boot application with the auto-configuration and nothing else of Rivulet's: its {@code @MessageMapping}
 * controller answers a {@link RivuletRequester} over a real transport, observed and metered by the application's
 * registries. Subclasses pick the transport with {@code rivulet.server.address}.
 */
abstract class AbstractRivuletApplicationTest {

    @Autowired
    RivuletClient client;
    @Autowired
    RivuletServerLifecycle server;
    @Autowired
    RivuletStrategies strategies;
    @Autowired
    InteractionOptions options;
    @Autowired
    TransportResources resources;
    @Autowired
    RivuletServerHealthIndicator health;
    @Autowired
    @Qualifier("rivuletTransportsHealthContributor")
    CompositeHealthContributor transportHealth;
    @Autowired
    MeterRegistry meters;
    @Autowired
    Queue<String> observed;

    private Endpoint endpoint;

    @AfterEach
    void disconnect() {
        if (endpoint != null) {
            endpoint.dispose();
        }
    }

    @Test
    void theControllerAnswersEveryInteractionModel() {
        String address = server.boundServer().address();
        // snippet:begin boot-requester
        endpoint = client.remoteAddress(address).connectNow();
        RivuletRequester greetings = RivuletRequester.create(Interactions.client(endpoint, options), strategies);
        Greeting greeting = greetings.route("greet.{name}", "ada").retrieveMono(Greeting.class).block();
        // snippet:end

        assertThat(greeting).isEqualTo(new Greeting("hello, ada"));
        assertThat(greetings.route("count").data(3).retrieveFlux(Integer.class).collectList()
                .block(Duration.ofSeconds(10))).isEqualTo(List.of(1, 2, 3));

        assertThat(health.health().getStatus()).isEqualTo(Status.UP);
        assertThat(health.health().getDetails()).containsEntry("connections", 1);
        // the transport's health names it open, with the client's and the server's ends of the connection
        HealthIndicator transport = (HealthIndicator) transportHealth.getContributor(
                Transports.forAddress(address).orElseThrow().name());
        String id = server.boundServer().transport().id();
        assertThat(transport.health().getStatus()).isEqualTo(Status.UP);
        assertThat(transport.health().getDetails()).extractingByKey("transports")
                .isEqualTo(Map.of(id, Map.of("state", "open", "endpoints", 2L)));
        // the responder observed its requests through the application's registry
        assertThat(observed).contains("rivulet.requests");
        // the transport's meters are on the application's registry, tagged with the resources' name
        assertThat(meters.getMeters()).anySatisfy(m -> assertThat(m.getId().getName()).startsWith("rivulet."));
        assertThat(resources.isInUse()).isTrue();
    }

    record Greeting(String text) {
    }

    @Controller
    static class GreetingController {

        @MessageMapping("greet.{name}")
        Mono<Greeting> greet(@DestinationVariable String name) {
            return Mono.just(new Greeting("hello, " + name));
        }

        @MessageMapping("count")
        Flux<Integer> count(Integer upTo) {
            return Flux.range(1, upTo);
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class GreetingApplication {

        @Bean
        GreetingController greetingController() {
            return new GreetingController();
        }

        // snippet:begin boot-customizers
        @Bean
        TransportConfigCustomizer busyPolling() {
            return config -> config.idleStrategy(IdleStrategy::busySpin);
        }

        @Bean
        RivuletClientCustomizer quickConnect() {
            return client -> client.connectTimeout(Duration.ofSeconds(5));
        }
        // snippet:end

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        Queue<String> observed() {
            return new ConcurrentLinkedQueue<>();
        }

        @Bean
        ObservationRegistry observationRegistry(Queue<String> observed) {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(new ObservationHandler<>() {
                @Override
                public void onStop(Observation.Context context) {
                    observed.add(context.getName());
                }

                @Override
                public boolean supportsContext(Observation.Context context) {
                    return true;
                }
            });
            return registry;
        }
    }
}
