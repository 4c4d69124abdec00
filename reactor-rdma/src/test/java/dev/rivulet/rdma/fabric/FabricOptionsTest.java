package dev.rivulet.rdma.fabric;

import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.rdma.libfabric.Libfabric;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static dev.rivulet.rdma.libfabric.FiConstants.FI_PROGRESS_MANUAL;
import static dev.rivulet.rdma.libfabric.FiConstants.FI_PROGRESS_UNSPEC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Transport options that are refused before anything is opened for good. */
class FabricOptionsTest {

    @Test
    void anUnknownCompletionWaitIsRefusedByName() {
        assertRefused("fabric.completionWait", "yield", "fabric.completionWait must be fd or none, not 'yield'");
    }

    @Test
    void anUnknownDataProgressIsRefusedByName() {
        assertRefused("fabric.dataProgress", "sometimes",
                "fabric.dataProgress must be provider, manual or auto, not 'sometimes'");
    }

    private static void assertRefused(String option, String value, String message) {
        Assumptions.assumeTrue(Libfabric.isAvailable(), () -> Libfabric.unavailableReason().orElse(""));
        TransportConfig config = TransportConfig.defaults().option("provider", "tcp").option(option, value);
        assertThatThrownBy(() -> new FabricTransportProvider().open(config))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining(message);
    }

    /** sockets progresses with a thread of its own unless asked not to: the hint must reach fi_getinfo. */
    @Test
    void manualDataProgressReachesTheProvider() {
        Assumptions.assumeTrue(Libfabric.isAvailable(), () -> Libfabric.unavailableReason().orElse(""));
        FabricDomain providerDefault = FabricDomain.open("sockets", FI_PROGRESS_UNSPEC);
        try {
            assertThat(providerDefault.autoProgress).as("sockets' own model").isTrue();
        } finally {
            providerDefault.close();
        }
        FabricDomain manual = FabricDomain.open("sockets", FI_PROGRESS_MANUAL);
        try {
            assertThat(manual.autoProgress).as("with fabric.dataProgress=manual").isFalse();
        } finally {
            manual.close();
        }
    }

    /** shm only progresses manually: asking it for automatic progress names the option in the error. */
    @Test
    void aProgressModelTheProviderLacksIsNamedInTheError() {
        Assumptions.assumeTrue(Libfabric.isAvailable(), () -> Libfabric.unavailableReason().orElse(""));
        TransportConfig config = TransportConfig.defaults().option("provider", "shm")
                .option("fabric.dataProgress", "auto");
        assertThatThrownBy(() -> new FabricTransportProvider().open(config))
                .isInstanceOf(TransportUnavailableException.class)
                .hasMessageContaining("no 'shm' provider with RDM endpoints, messages and RMA and automatic data "
                        + "progress (fabric.dataProgress); it offers: ");
    }
}
