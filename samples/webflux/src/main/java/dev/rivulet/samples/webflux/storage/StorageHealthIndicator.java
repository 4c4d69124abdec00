package dev.rivulet.samples.webflux.storage;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import reactor.core.publisher.Mono;

/** {@code /actuator/health} for the storage node: listening or not, with its connections and how full it is. */
public final class StorageHealthIndicator implements ReactiveHealthIndicator {

    private final StorageNode node;

    public StorageHealthIndicator(StorageNode node) {
        this.node = node;
    }

    @Override
    public Mono<Health> health() {
        Health.Builder b = node.isRunning() ? Health.up() : Health.down();
        return Mono.just(b.withDetail("address", node.address())
                .withDetail("connections", node.connections())
                .withDetail("blocks", node.store().blockCount())
                .withDetail("usedBytes", node.store().usedBytes())
                .withDetail("capacityBytes", node.store().capacity())
                .build());
    }
}
