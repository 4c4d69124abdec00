package dev.rivulet.spring.boot.autoconfigure.health;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import dev.rivulet.core.RivuletServer.BoundServer;
import dev.rivulet.spring.boot.autoconfigure.RivuletServerLifecycle;

/**
 * {@code UP} while the server of the application's controllers listens on a transport that is open, with its address
 * and the number of endpoints it serves; {@code DOWN} before it started, after it stopped, or once its transport
 * closed.
 */
public class RivuletServerHealthIndicator implements HealthIndicator {

    private final RivuletServerLifecycle server;

    public RivuletServerHealthIndicator(RivuletServerLifecycle server) {
        this.server = server;
    }

    @Override
    public Health health() {
        BoundServer bound = server.boundServer();
        if (bound == null) {
            return Health.down().withDetail("reason", "not listening").build();
        }
        Health.Builder health = bound.isDisposed() || bound.transport().isDisposed()
                ? Health.down().withDetail("reason", "closed") : Health.up();
        return health.withDetail("address", bound.address())
                .withDetail("connections", bound.connections())
                .withDetail("transport", bound.transport().id())
                .build();
    }
}
