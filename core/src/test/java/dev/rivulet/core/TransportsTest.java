package dev.rivulet.core;

import dev.rivulet.core.error.TransportUnavailableException;
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
        TransportConfig b = a.sendQueueDepth(8).option("x", "1");
        assertThat(a.sendQueueDepth()).isEqualTo(TransportConfig.DEFAULT_QUEUE_DEPTH);
        assertThat(b.sendQueueDepth()).isEqualTo(8);
        assertThat(b.intOption("x", 0)).isEqualTo(1);
        assertThat(a.options()).isEmpty();
        assertThatThrownBy(() -> a.receiveQueueDepth(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
