package dev.rivulet.core.metrics;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.engine.AbstractTransport;
import dev.rivulet.core.local.LocalTransportProvider;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A backend's own meters live as long as the transport's standard ones, on every registry they are bound to. */
class BackendMetersTest {

    private final AtomicLong count = new AtomicLong(7);
    private final SimpleMeterRegistry configured = new SimpleMeterRegistry();
    private final Transport transport = new LocalTransportProvider().open(TransportConfig.defaults().name("meters")
            .meterRegistry(configured));

    @AfterEach
    void dispose() {
        transport.dispose();
    }

    private TransportMetrics metrics() {
        return ((AbstractTransport) transport).stats();
    }

    private BackendMeters counter(String name) {
        return (registry, tags) -> List.of(FunctionCounter.builder(name, count, AtomicLong::get).tags(tags)
                .register(registry));
    }

    @Test
    void aBackendMeterIsPublishedWithTheStandardTagsOnRegistriesBoundBeforeAndAfter() {
        metrics().add(counter("rivulet.test.things"));
        SimpleMeterRegistry later = new SimpleMeterRegistry();
        transport.metrics().bindTo(later);

        for (SimpleMeterRegistry r : List.of(configured, later)) {
            FunctionCounter c = r.find("rivulet.test.things").tags("transport", "local", "name", "meters")
                    .functionCounter();
            assertThat(c).as("on %s", r).isNotNull();
            assertThat(c.count()).isEqualTo(7);
        }
    }

    @Test
    void aBackendMeterGoesWithTheTransport() {
        metrics().add(counter("rivulet.test.things"));
        transport.dispose();

        assertThat(configured.find("rivulet.test.things").meters()).isEmpty();
    }

    @Test
    void aMeterOutsideTheRivuletNamesOrWithoutTheTagsIsRefusedAndNotLeftBehind() {
        assertThatThrownBy(() -> metrics().add(counter("things"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> metrics().add((registry, tags) -> List.<Meter>of(Gauge.builder("rivulet.test.level",
                count, AtomicLong::get).tags(Tags.of("transport", "other")).register(registry))))
                .isInstanceOf(IllegalArgumentException.class);

        assertThat(configured.find("things").meters()).isEmpty();
        assertThat(configured.find("rivulet.test.level").meters()).isEmpty();
    }
}
