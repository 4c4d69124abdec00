package dev.rivulet.rdma.fabric;

import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.rdma.libfabric.Libfabric;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Transport options that are refused before anything is opened for good. */
class FabricOptionsTest {

    @Test
    void anUnknownCompletionWaitIsRefusedByName() {
        Assumptions.assumeTrue(Libfabric.isAvailable(), () -> Libfabric.unavailableReason().orElse(""));
        TransportConfig config = TransportConfig.defaults().option("provider", "tcp")
                .option("fabric.completionWait", "yield");
        assertThatThrownBy(() -> new FabricTransportProvider().open(config))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("fabric.completionWait must be fd or none, not 'yield'");
    }
}
