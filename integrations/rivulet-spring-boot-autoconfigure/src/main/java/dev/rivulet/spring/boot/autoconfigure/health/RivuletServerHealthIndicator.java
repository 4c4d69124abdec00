package dev.rivulet.spring.boot.autoconfigure.health;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

import dev.rivulet.core.RivuletServer.BoundServer;
import dev.rivulet.spring.boot.autoconfigure.RivuletServerLifecycle;

/**
 * {@code UP} while the server of the application's controllers listens on a transport that is open, with its
 * address, the number of connections it serves, its transport and the requests in flight;
 * {@code OUT_OF_SERVICE} while a graceful shutdown waits for the requests in flight; {@code DOWN} before it started,
 * after it stopped, or once it or its transport closed.
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
            Health.Builder health = server.isDraining()
                    ? Health.outOfService().withDetail("reason", "draining")
                    : Health.down().withDetail("reason", "not listening");
            return health.withDetail("requestsInFlight", server.requestsInFlight()).build();
        }
        Health.Builder health;
        if (bound.isDisposed()) {
            health = Health.down().withDetail("reason", "closed");
        } else if (bound.transport().isDisposed()) {
            health = Health.down().withDetail("reason", "its transport " + bound.transport().id() + " closed");
        } else {
            health = Health.up();
        }
        return health.withDetail("address", bound.address())
                .withDetail("connections", bound.connections())
                .withDetail("transport", bound.transport().id())
                .withDetail("requestsInFlight", server.requestsInFlight())
                .build();
    }
}
