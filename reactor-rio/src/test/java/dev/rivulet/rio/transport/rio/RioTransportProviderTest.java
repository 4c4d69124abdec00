package dev.rivulet.rio.transport.rio;

import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.error.TransportUnavailableException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

class RioTransportProviderTest {

    @Test
    void isFoundByNameAndSchemeAndIsUnavailableOffWindowsWithTheReason() {
        assumeFalse(System.getProperty("os.name", "").toLowerCase().startsWith("windows"));
        var p = Transports.provider("rio").orElseThrow();
        assertThat(p.scheme()).isEqualTo("rio");
        assertThat(p.availability().available()).isFalse();
        assertThat(p.availability().reason()).contains("requires Windows");
        assertThatThrownBy(() -> Transports.open("rio", TransportConfig.defaults()))
                .isInstanceOf(TransportUnavailableException.class).hasMessageContaining("requires Windows");
        assertThatThrownBy(() -> p.open(TransportConfig.defaults()))
                .isInstanceOf(TransportUnavailableException.class);
    }
}
