package dev.rivulet.rio.uring;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.rio.stream.StreamAddress;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class UringTransportProviderTest {

    @Test
    void isFoundByNameAndSchemeWithItsPriority() {
        var p = Transports.provider("io_uring").orElseThrow();
        assertThat(p.scheme()).isEqualTo("uring");
        assertThat(p.priority()).isEqualTo(10);
        assertThat(Transports.forAddress("uring://127.0.0.1:1").orElseThrow().name()).isEqualTo("io_uring");
        assertThat(p.availability().reason()).isNotBlank();
    }

    @Test
    void listenerReportsTheRealPortAndRefusalsAreRetryable() {
        Requirements.assume(new UringTransportProvider().availability(), "io_uring");
        Transport t = Transports.open("io_uring", TransportConfig.defaults());
        try {
            Listener l = t.bind("uring://127.0.0.1:0").block(Duration.ofSeconds(10));
            assertThat(l.address()).matches("uring://127\\.0\\.0\\.1:[1-9][0-9]*");
            String address = l.address();
            l.dispose();
            StepVerifier.create(t.connect(address)).expectError(ConnectionRefusedException.class)
                    .verify(Duration.ofSeconds(10));
            StepVerifier.create(t.connect("local://x")).expectError(InvalidRequestException.class)
                    .verify(Duration.ofSeconds(10));
        } finally {
            t.dispose();
        }
    }

    @Test
    void ipv6AddressesUseBrackets() {
        assertThat(StreamAddress.format(UringTransport.SCHEME, StreamAddress.parse(UringTransport.SCHEME, "uring://[::1]:7"))).isEqualTo("uring://[0:0:0:0:0:0:0:1]:7");
        assertThat(StreamAddress.parse(UringTransport.SCHEME, "uring://[::1]:0").getAddress().isLoopbackAddress()).isTrue();
    }
}
