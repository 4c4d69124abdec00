package dev.rivulet.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rivulet.core.error.InvalidRequestException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

class HostPortAddressTest {

    private static final String FORM = "addresses look like x://host:port";

    @Test
    void parsesAnIpv4AddressAndPort() {
        HostPortAddress a = HostPortAddress.parse("x://10.0.0.7:7000", "x", FORM);

        assertThat(a.host()).isEqualTo("10.0.0.7");
        assertThat(a.port()).isEqualTo(7000);
        assertThat(a.query()).isEmpty();
    }

    @Test
    void keepsAnIpv6HostWithoutItsBrackets() {
        HostPortAddress a = HostPortAddress.parse("x://[fe80::1]:0", "x", FORM);

        assertThat(a.host()).isEqualTo("fe80::1");
        assertThat(a.port()).isZero();
    }

    @Test
    void decodesTheQuery() {
        assertThat(HostPortAddress.parse("x://h:1?provider=tcp&a=%20b", "x", FORM).query())
                .isEqualTo("provider=tcp&a= b");
    }

    @Test
    void resolvesLiteralsAndHostNames() {
        assertThat(HostPortAddress.parse("x://[::1]:9", "x", FORM).resolve())
                .isEqualTo(new InetSocketAddress("::1", 9));
        assertThat(HostPortAddress.parse("x://localhost:9", "x", FORM).resolve().getAddress().isLoopbackAddress())
                .isTrue();
    }

    @Test
    void refusesNull() {
        assertThatThrownBy(() -> HostPortAddress.parse(null, "x", FORM))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("address is null");
    }

    @Test
    void refusesWhatIsNoUri() {
        assertThatThrownBy(() -> HostPortAddress.parse("x://a b:1", "x", FORM))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("not a URI: x://a b:1");
    }

    @Test
    void refusesAnotherSchemeOrAMissingPortWithTheExpectedForm() {
        assertThatThrownBy(() -> HostPortAddress.parse("y://h:1", "x", FORM))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining(FORM + ", got y://h:1");
        assertThatThrownBy(() -> HostPortAddress.parse("x://h", "x", FORM))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining(FORM + ", got x://h");
    }

    @Test
    void refusesAnUnknownHostWhenResolving() {
        HostPortAddress a = HostPortAddress.parse("x://no-such-host.invalid:1", "x", FORM);

        assertThatThrownBy(a::resolve).isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("unknown host in x://no-such-host.invalid:1");
    }

    @Test
    void formatsIpv6InBracketsAndAppendsTheQuery() {
        assertThat(HostPortAddress.format("x", "::1", 7000, "connection=manual"))
                .isEqualTo("x://[::1]:7000?connection=manual");
        assertThat(HostPortAddress.format("x", "10.0.0.7", 1, "")).isEqualTo("x://10.0.0.7:1");
    }

    @Test
    void formatsASocketAddressWithoutTheIpv6Scope() throws Exception {
        InetSocketAddress scoped = new InetSocketAddress(
                Inet6Address.getByAddress(null, InetAddress.getByName("fe80::1").getAddress(), 3), 5);

        assertThat(HostPortAddress.format("x", scoped)).isEqualTo("x://[fe80:0:0:0:0:0:0:1]:5");
    }
}
