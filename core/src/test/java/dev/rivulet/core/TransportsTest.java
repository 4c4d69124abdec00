package dev.rivulet.core;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.local.LocalOptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class TransportsTest {

    @Test
    void serviceLoaderFindsTheLocalProvider() {
        assertThat(Transports.provider("local")).isPresent();
        assertThat(Transports.forAddress("local://x")).map(p -> p.name()).hasValue("local");
        assertThat(Transports.describe()).contains("local (local://, available)");
    }

    @Test
    void unknownProviderSaysWhatExists() {
        assertThatThrownBy(() -> Transports.open("nope", TransportConfig.defaults()))
                .isInstanceOf(TransportUnavailableException.class).hasMessageContaining("local");
    }

    @Test
    void configIsImmutable() {
        TransportConfig a = TransportConfig.defaults();
        TransportConfig b = a.sendQueueDepth(8).option(LocalOptions.NATIVE_QUEUE_DEPTH, 16);
        assertThat(a.sendQueueDepth()).isEqualTo(TransportConfig.DEFAULT_QUEUE_DEPTH);
        assertThat(b.sendQueueDepth()).isEqualTo(8);
        assertThat(b.get(LocalOptions.NATIVE_QUEUE_DEPTH)).isEqualTo(16);
        assertThat(a.get(LocalOptions.NATIVE_QUEUE_DEPTH)).isEqualTo(64);
        assertThat(a.options()).isEmpty();
        assertThatThrownBy(() -> a.receiveQueueDepth(0)).isInstanceOf(InvalidRequestException.class);
    }

    @Test
    void typedOptionsRefuseValuesTheyCannotUseNamingTheKey() {
        assertThatThrownBy(() -> TransportConfig.defaults().option(LocalOptions.NATIVE_QUEUE_DEPTH, 0))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("local.nativeQueueDepth")
                .hasMessageContaining("1..65536");
        TransportConfig text = TransportConfig.defaults().option("local.nativeQueueDepth", "lots");
        assertThatThrownBy(() -> Transports.open("local", text))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("local.nativeQueueDepth='lots'");
    }

    @Test
    void anUnknownOptionIsRefusedWithTheKnownOnes() {
        TransportConfig typo = TransportConfig.defaults().option("local.nativeQueueDeph", "8");
        assertThatThrownBy(() -> Transports.open("local", typo))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("unknown option 'local.nativeQueueDeph'")
                .hasMessageContaining("local.nativeQueueDepth").hasMessageContaining("local.maxMessageSize");
        assertThatThrownBy(() -> TransportConfig.defaults().option("liveness.peerTimeot", "5s"))
                .isInstanceOf(InvalidRequestException.class).hasMessageContaining("liveness.peerTimeout");
    }

    @Test
    void aMalformedAddressIsAnInvalidRequest() {
        assertThatThrownBy(() -> Transports.forAddress("local://has space"))
                .isInstanceOf(InvalidRequestException.class);
    }
}
