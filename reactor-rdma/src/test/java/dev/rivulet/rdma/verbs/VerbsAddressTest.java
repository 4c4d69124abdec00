package dev.rivulet.rdma.verbs;

import dev.rivulet.core.error.InvalidRequestException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** {@code verbs://host:port?device=...&port=...&gid_index=...&connection=...}. */
class VerbsAddressTest {

    @Test
    void theQueryNamesTransportOptions() {
        VerbsAddress a = VerbsAddress.parse("verbs://10.0.0.7:7000?device=mlx5_0&port=1&gid_index=3"
                + "&connection=manual");
        assertThat(a.host()).isEqualTo("10.0.0.7");
        assertThat(a.port()).isEqualTo(7000);
        assertThat(a.options()).containsExactlyInAnyOrderEntriesOf(Map.of("verbs.device", "mlx5_0",
                "verbs.port", "1", "verbs.gidIndex", "3", "verbs.connection", "manual"));
    }

    @Test
    void anAddressWithoutAQueryImpliesTheDefaults() {
        VerbsAddress a = VerbsAddress.parse("verbs://[fe80::1]:0");
        assertThat(a.host()).isEqualTo("fe80::1");
        assertThat(a.port()).isZero();
        assertThat(a.options()).isEmpty();
        assertThat(a.impliedOptions()).containsExactlyInAnyOrderEntriesOf(Map.of("verbs.device", "auto",
                "verbs.port", "0", "verbs.gidIndex", "-1", "verbs.connection", "rdmacm"));
    }

    @Test
    void addressesImplyingTheSameOptionsCanShareATransport() {
        assertThat(new VerbsTransportProvider().optionsFor("verbs://a:1"))
                .isEqualTo(new VerbsTransportProvider().optionsFor("verbs://b:2?connection=rdmacm&device=auto"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"fabric://host:1", "verbs://host", "verbs:/host:1", "not a uri at all"})
    void somethingElseIsRefusedWithTheFormExpected(String address) {
        assertThatThrownBy(() -> VerbsAddress.parse(address)).isInstanceOf(InvalidRequestException.class);
    }

    @Test
    void anUnknownParameterIsRefusedWithTheKnownOnes() {
        assertThatThrownBy(() -> VerbsAddress.parse("verbs://h:1?provider=verbs"))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("unknown parameter 'provider'")
                .hasMessageContaining("connection, device, gid_index, port");
    }

    @Test
    void aValueTheOptionCannotReadIsRefusedBeforeAnythingOpens() {
        assertThatThrownBy(() -> VerbsAddress.parse("verbs://h:1?port=300"))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("verbs.port='300'");
        assertThatThrownBy(() -> VerbsAddress.parse("verbs://h:1?connection=tcp"))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("one of rdmacm, manual");
        assertThatThrownBy(() -> VerbsAddress.parse("verbs://h:1?device="))
                .isInstanceOf(InvalidRequestException.class);
    }

    @Test
    void aParameterGivenTwiceIsRefused() {
        assertThatThrownBy(() -> VerbsAddress.parse("verbs://h:1?port=1&port=2"))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("twice");
    }

    @Test
    void aListenersAddressBracketsIpv6Hosts() {
        assertThat(VerbsAddress.uri("::1", 7000, "connection=manual"))
                .isEqualTo("verbs://[::1]:7000?connection=manual");
        assertThat(VerbsAddress.uri("10.0.0.1", 1, "")).isEqualTo("verbs://10.0.0.1:1");
    }
}
