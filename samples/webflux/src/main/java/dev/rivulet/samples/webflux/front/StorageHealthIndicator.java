package dev.rivulet.samples.webflux.front;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import reactor.core.publisher.Mono;

/**
 * {@code /actuator/health} for the front's connection to the storage node: up with its flow-control counters (credits
 * the storage node granted, sends in flight, operations parked), down with the reason while it is lost.
 */
public final class StorageHealthIndicator implements ReactiveHealthIndicator {

    private final StorageClient storage;

    public StorageHealthIndicator(StorageClient storage) {
        this.storage = storage;
    }

    @Override
    public Mono<Health> health() {
        return storage.stats()
                .map(s -> Health.up().withDetail("address", storage.storageAddress())
                        .withDetail("credits", s.sendCredits())
                        .withDetail("sendsInFlight", s.sendsInFlight())
                        .withDetail("pendingOperations", s.pendingOperations())
                        .withDetail("messagesSent", s.messagesSent())
                        .build())
                .onErrorResume(e -> Mono.just(Health.down().withDetail("address", storage.storageAddress())
                        .withDetail("reason", storage.lastFailure()).build()));
    }
}
