package dev.rivulet.rdma.fabric;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.rdma.fabric.sys.Libfabric;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import reactor.test.StepVerifier;

import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_PROGRESS_MANUAL;
import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_PROGRESS_UNSPEC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Transport options that are refused before anything is opened for good. */
class FabricOptionsTest {

    @Test
    void anUnknownCompletionWaitIsRefusedByName() {
        assertRefused("fabric.completionWait", "yield", "option fabric.completionWait='yield' is not one of fd, none");
    }

    @Test
    void anUnknownDataProgressIsRefusedByName() {
        assertRefused("fabric.dataProgress", "sometimes",
                "option fabric.dataProgress='sometimes' is not one of provider, manual, auto");
    }

    @Test
    void anOptionOfAnotherTransportIsRefusedWithTheKnownOnes() {
        assertRefused("uring.ringEntries", "64", "unknown option 'uring.ringEntries' for transport libfabric; known: "
                + "fabric.completionWait, fabric.dataProgress, fabric.eagerSize, fabric.maxMessageSize, "
                + "fabric.provider");
        assertRefused("fabric.eagerSize", "big", "option fabric.eagerSize='big' is not an integer");
    }

    /** The address names the provider; a client or server opening a transport for it needs it nowhere else. */
    @Test
    void theProviderIsSaidOnceInTheAddress() {
        Assumptions.assumeTrue(Libfabric.isAvailable(), () -> Libfabric.unavailableReason().orElse(""));
        FabricTransportProvider p = new FabricTransportProvider();
        assertThat(p.optionsFor("fabric://127.0.0.1:7000?provider=sockets")).containsEntry("fabric.provider",
                "sockets");
        assertThat(p.optionsFor("fabric://127.0.0.1:7000")).containsEntry("fabric.provider", "tcp");
        RivuletServer.BoundServer server = RivuletServer.create().bindAddress("fabric://127.0.0.1:0?provider=sockets")
                .config(c -> c.name("sockets-server")).handle(ep -> ep.send(ep.receive().retain())).bindNow();
        try {
            assertThat(server.transport().name()).isEqualTo("libfabric/sockets");
            Endpoint client = RivuletClient.create().remoteAddress(server.address())
                    .config(c -> c.name("sockets-client")).connectNow();
            assertThat(client.capabilities().transport()).isEqualTo("libfabric/sockets");
            StepVerifier.create(client.receive().asString().next().zipWith(client.send("once").thenReturn(1),
                    (m, x) -> m)).expectNext("once").verifyComplete();
            client.dispose();
            Transport shared = Transports.shared("fabric://127.0.0.1:1?provider=sockets");
            assertThat(shared.name()).isEqualTo("libfabric/sockets");
            assertThat(Transports.shared("fabric://127.0.0.1:2?provider=sockets")).isSameAs(shared);
            assertThat(Transports.shared("fabric://127.0.0.1:2")).isNotSameAs(shared);
        } finally {
            server.disposeNow(java.time.Duration.ofSeconds(10));
            Transports.disposeShared();
        }
    }

    private static void assertRefused(String option, String value, String message) {
        Assumptions.assumeTrue(Libfabric.isAvailable(), () -> Libfabric.unavailableReason().orElse(""));
        TransportConfig config = TransportConfig.defaults().option("fabric.provider", "tcp").option(option, value);
        assertThatThrownBy(() -> new FabricTransportProvider().open(config))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining(message);
    }

    /** sockets progresses with a thread of its own unless asked not to: the hint must reach fi_getinfo. */
    @Test
    void manualDataProgressReachesTheProvider() {
        Assumptions.assumeTrue(Libfabric.isAvailable(), () -> Libfabric.unavailableReason().orElse(""));
        FabricDomain providerDefault = FabricDomain.open("sockets", FI_PROGRESS_UNSPEC,
                FabricTransport.queueSize(TransportConfig.defaults()));
        try {
            assertThat(providerDefault.autoProgress).as("sockets' own model").isTrue();
        } finally {
            providerDefault.close();
        }
        FabricDomain manual = FabricDomain.open("sockets", FI_PROGRESS_MANUAL,
                FabricTransport.queueSize(TransportConfig.defaults()));
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
        TransportConfig config = TransportConfig.defaults().option("fabric.provider", "shm")
                .option("fabric.dataProgress", "auto");
        assertThatThrownBy(() -> new FabricTransportProvider().open(config))
                .isInstanceOf(TransportUnavailableException.class)
                .hasMessageContaining("no 'shm' provider with RDM endpoints, messages and RMA and automatic data "
                        + "progress (fabric.dataProgress); it offers: ");
    }
}
