package dev.rivulet.rio.windows;

import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.rio.stream.StreamAddress;
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

    @Test
    void addressesAreParsedAndFormattedWithTheRioScheme() {
        assertThat(StreamAddress.format(RioTransport.SCHEME, StreamAddress.parse(RioTransport.SCHEME, "rio://127.0.0.1:9"))).isEqualTo("rio://127.0.0.1:9");
        assertThat(StreamAddress.parse(RioTransport.SCHEME, "rio://[::1]:0").getAddress().isLoopbackAddress()).isTrue();
        assertThatThrownBy(() -> StreamAddress.parse(RioTransport.SCHEME, "uring://127.0.0.1:9"))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("rio://host:port");
    }
}
