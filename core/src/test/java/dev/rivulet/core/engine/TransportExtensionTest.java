package dev.rivulet.core.engine;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.local.LocalTransportProvider;
import dev.rivulet.core.loop.ProgressEngine;
import dev.rivulet.core.spi.DeviceMemoryRegistrar;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** What every Rivulet transport offers through {@link Transport#extension}, and what it answers for the rest. */
class TransportExtensionTest {

    private final Transport transport = new LocalTransportProvider().open(TransportConfig.defaults());

    @AfterEach
    void dispose() {
        transport.dispose();
    }

    @Test
    void everyTransportOffersItsPollingThreads() {
        assertThat(transport.extension(ProgressEngine.class))
                .containsSame(((AbstractTransport) transport).progressEngine());
    }

    @Test
    void aFacilityTheTransportDoesNotHaveIsEmpty() {
        assertThat(transport.extension(DeviceMemoryRegistrar.class)).isEmpty();
        assertThat(transport.extension(String.class)).isEmpty();
    }
}
