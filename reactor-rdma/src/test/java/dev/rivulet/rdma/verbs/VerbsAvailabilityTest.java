package dev.rivulet.rdma.verbs;

import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.core.spi.TransportProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A host without an RDMA device (this one, CI): the provider is found, reports itself unavailable with the reason,
 * and is passed over by everything that picks a transport. Skipped where a device exists.
 */
class VerbsAvailabilityTest {

    @BeforeEach
    void onAHostWithoutDevices() {
        VerbsOpenTest.assumeNoDevice();
    }

    @Test
    void theProviderIsUnavailableBecauseThereIsNoDevice() {
        Availability a = new VerbsTransportProvider().availability();
        assertThat(a.available()).isFalse();
        assertThat(a.reason()).startsWith("no RDMA device");
    }

    @Test
    void transportsListsItWithTheReasonAndPassesItOver() {
        TransportProvider verbs = Transports.provider("verbs").orElseThrow();
        assertThat(verbs).isInstanceOf(VerbsTransportProvider.class);
        assertThat(Transports.forAddress("verbs://10.0.0.1:7000")).get().extracting(TransportProvider::name)
                .isEqualTo("verbs");
        assertThat(Transports.describe()).contains("verbs (verbs://, unavailable: no RDMA device");
        assertThat(Transports.best().name()).isNotEqualTo("verbs");
    }

    @Test
    void openingItSaysWhy() {
        assertThatThrownBy(() -> Transports.open("verbs", TransportConfig.defaults()))
                .isInstanceOf(TransportUnavailableException.class)
                .hasMessageContaining("transport 'verbs' is unavailable: no RDMA device");
        assertThatThrownBy(() -> new VerbsTransportProvider().open(TransportConfig.defaults()))
                .isInstanceOf(TransportUnavailableException.class)
                .hasMessageStartingWith("verbs is unavailable: no RDMA device");
    }
}
