package dev.rivulet.spring.boot.autoconfigure.health;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.TransportOption;
import dev.rivulet.core.TransportResources;
import dev.rivulet.core.Transports;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.core.spi.TransportProvider;

/** The health of one kind of transport, each state both ways, over the in-JVM local transport. */
class TransportHealthIndicatorTest {

    private final TransportResources resources = TransportResources.create("health");
    private final TransportProvider local = Transports.provider("local").orElseThrow();
    private final TransportHealthIndicator health = new TransportHealthIndicator(local, false, resources);

    @AfterEach
    void close() {
        resources.dispose();
    }

    @Test
    void upWithEveryOpenTransportItsStateAndEndpoints() {
        assertThat(health.health().getStatus()).as("available, nothing opened yet").isEqualTo(Status.UP);
        assertThat(transports(health.health())).isEmpty();

        RivuletServer.BoundServer server = RivuletServer.create().runOn(resources)
                .bindAddress("local://transport-health").bindNow();
        Endpoint client = RivuletClient.create().runOn(resources).remoteAddress(server.address()).connectNow();
        Transport transport = server.transport();
        Health up = health.health();
        assertThat(up.getStatus()).isEqualTo(Status.UP);
        assertThat(up.getDetails()).containsEntry("scheme", "local").containsEntry("required", false);
        assertThat(transports(up)).containsOnlyKeys(transport.id());
        assertThat(transports(up).get(transport.id())).containsEntry("state", "open");
        assertThat((long) transports(up).get(transport.id()).get("endpoints")).isPositive();
        client.dispose();
    }

    @Test
    void downWhenATransportClosesUnderTheApplication() {
        Transport transport = resources.forAddress("local://closes-under-use");
        transport.dispose();
        assertThat(health.health()).satisfies(down -> {
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(down.getDetails().get("reason")).asString()
                    .contains("closed while the application runs on it", transport.id());
            assertThat(transports(down).get(transport.id())).containsEntry("state", "closed");
        });

        resources.forAddress("local://closes-under-use");
        assertThat(health.health().getStatus()).as("replaced on the next use").isEqualTo(Status.UP);
    }

    @Test
    void outOfServiceOnceTheApplicationClosesItsTransports() {
        Transport transport = resources.forAddress("local://closing-with-the-application");
        resources.dispose();
        Health closing = health.health();
        assertThat(closing.getStatus()).isEqualTo(Status.OUT_OF_SERVICE);
        assertThat(transports(closing).get(transport.id())).containsEntry("state", "closed");
    }

    @Test
    void anUnavailableTransportIsDownOnlyWhereRequired() {
        TransportProvider missing = new Unavailable();
        Health required = new TransportHealthIndicator(missing, true, resources).health();
        assertThat(required.getStatus()).isEqualTo(Status.DOWN);
        assertThat(required.getDetails()).containsEntry("reason", "no such device");
        Health optional = new TransportHealthIndicator(missing, false, resources).health();
        assertThat(optional.getStatus()).isEqualTo(Status.UNKNOWN);
        assertThat(optional.getDetails()).containsEntry("reason", "no such device");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Map<String, Object>> transports(Health health) {
        return (Map<String, Map<String, Object>>) health.getDetails().get("transports");
    }

    /** A provider that cannot run here. */
    private static final class Unavailable implements TransportProvider {

        @Override
        public String name() {
            return "warp-drive";
        }

        @Override
        public String scheme() {
            return "warp";
        }

        @Override
        public int priority() {
            return 0;
        }

        @Override
        public Availability availability() {
            return new Availability(false, "no such device");
        }

        @Override
        public Transport open(TransportConfig config) {
            throw new UnsupportedOperationException("unavailable");
        }

        @Override
        public List<TransportOption<?>> options() {
            return List.of();
        }
    }
}
