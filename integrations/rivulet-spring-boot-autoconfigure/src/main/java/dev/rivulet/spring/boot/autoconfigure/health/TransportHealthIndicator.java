package dev.rivulet.spring.boot.autoconfigure.health;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportResources;
import dev.rivulet.core.engine.AbstractTransport;
import dev.rivulet.core.spi.TransportProvider;

/**
 * Health of one kind of transport in the application: whether it can run on this machine, and the state of each of
 * its transports the application's resources opened ({@code transports}: by name, its {@code state} — open, closing
 * or closed — and the {@code endpoints} open on it).
 *
 * <ul>
 *   <li>{@code UP}: available, and every transport of it the application opened is open (none opened yet is fine);</li>
 *   <li>{@code DOWN}: a transport of it closed while the application still runs on it ({@code reason} names it), or
 *       it is unavailable and the application requires it ({@code reason} says why);</li>
 *   <li>{@code OUT_OF_SERVICE}: the application is shutting down and its transports are closing or closed;</li>
 *   <li>{@code UNKNOWN}: unavailable, and the application does not require it (a transport it does not use should
 *       not take its health down).</li>
 * </ul>
 */
public class TransportHealthIndicator implements HealthIndicator {

    private final TransportProvider provider;
    private final boolean required;
    private final TransportResources resources;
    private final TransportStates states = new TransportStates();

    public TransportHealthIndicator(TransportProvider provider, boolean required, TransportResources resources) {
        this.provider = provider;
        this.required = required;
        this.resources = resources;
    }

    @Override
    public Health health() {
        var availability = provider.availability();
        if (!availability.available()) {
            return Health.status(required ? Status.DOWN : Status.UNKNOWN)
                    .withDetail("reason", availability.reason())
                    .withDetail("scheme", provider.scheme())
                    .withDetail("required", required)
                    .build();
        }
        Map<String, Object> transports = new LinkedHashMap<>();
        List<String> closedUnderUse = new ArrayList<>();
        for (Transport t : resources.transports()) {
            if (!ofThisKind(t)) {
                continue;
            }
            TransportStates.State state = states.of(t);
            transports.put(t.id(), Map.of("state", state.detail(), "endpoints", endpoints(t)));
            if (state != TransportStates.State.OPEN) {
                closedUnderUse.add(t.id());
            }
        }
        Health.Builder health;
        if (resources.isDisposed()) {
            health = Health.outOfService().withDetail("reason", "closing with the application");
        } else if (!closedUnderUse.isEmpty()) {
            health = Health.down().withDetail("reason", "closed while the application runs on it: "
                    + String.join(", ", closedUnderUse));
        } else {
            health = Health.up();
        }
        return health.withDetail("scheme", provider.scheme())
                .withDetail("required", required)
                .withDetail("transports", transports)
                .build();
    }

    /** A transport's name is its provider's, with the provider's own provider after a slash (libfabric/tcp). */
    private boolean ofThisKind(Transport t) {
        return t.name().equals(provider.name()) || t.name().startsWith(provider.name() + "/");
    }

    /** Endpoints open on {@code t}, where its counters say (every Rivulet transport); -1 where they do not. */
    private static long endpoints(Transport t) {
        return t instanceof AbstractTransport counted ? counted.stats().endpointsOpen() : -1;
    }
}
