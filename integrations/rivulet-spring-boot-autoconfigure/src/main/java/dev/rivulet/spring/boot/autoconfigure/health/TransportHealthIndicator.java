package dev.rivulet.spring.boot.autoconfigure.health;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

import dev.rivulet.core.spi.TransportProvider;

/**
 * Whether a transport can run on this machine: {@code UP} when its provider is available, {@code DOWN} with the
 * reason when the application requires it and it is not, {@code UNKNOWN} with the reason otherwise (a transport the
 * application does not use should not take its health down).
 */
public class TransportHealthIndicator implements HealthIndicator {

    private final TransportProvider provider;
    private final boolean required;

    public TransportHealthIndicator(TransportProvider provider, boolean required) {
        this.provider = provider;
        this.required = required;
    }

    @Override
    public Health health() {
        var availability = provider.availability();
        Health.Builder health = availability.available() ? Health.up()
                : Health.status(required ? Status.DOWN : Status.UNKNOWN).withDetail("reason", availability.reason());
        return health.withDetail("scheme", provider.scheme()).withDetail("required", required).build();
    }
}
