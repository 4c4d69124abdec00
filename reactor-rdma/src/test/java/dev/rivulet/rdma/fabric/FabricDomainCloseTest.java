package dev.rivulet.rdma.fabric;

import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.rdma.fabric.sys.Libfabric;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.opentest4j.TestAbortedException;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_ADDR_NOTAVAIL;
import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_PROGRESS_MANUAL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A domain's close against endpoints being opened on it, as when a transport is disposed while its listener sets a
 * reconnecting client's endpoint up: an endpoint opened before the close keeps the domain alive until it is let go
 * of, and one asked for after the close is refused with {@link ResourceClosedException} instead of reaching a domain
 * that libfabric has freed (which took the process down).
 */
class FabricDomainCloseTest {

    @Test
    @Timeout(60)
    void anEndpointAskedForAfterTheCloseIsRefusedAndOneOpenBeforeKeepsTheDomainUntilLetGo() {
        FabricDomain d = tcpDomain();
        FabricDomain.EndpointHandles before = d.openEndpoint(16, false);
        d.close(); // deferred: an endpoint is still open in libfabric
        assertThatThrownBy(() -> d.openEndpoint(16, false)).isInstanceOf(ResourceClosedException.class)
                .hasMessageContaining("closed");
        assertThat(d.heldCount()).isOne();
        d.closeEndpoint(before, FI_ADDR_NOTAVAIL, () -> { }); // the last one out closes the domain
        assertThat(d.heldCount()).isZero();
        assertThatThrownBy(() -> d.openEndpoint(16, false)).isInstanceOf(ResourceClosedException.class);
    }

    @Test
    @Timeout(120)
    void closingWhileOtherThreadsOpenEndpointsNeverFreesTheDomainUnderThem() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < 20; round++) {
                FabricDomain d = tcpDomain();
                CountDownLatch go = new CountDownLatch(1);
                List<Future<Integer>> openers = new ArrayList<>();
                for (int t = 0; t < 3; t++) {
                    openers.add(threads.submit(() -> {
                        go.await();
                        int opened = 0;
                        try {
                            while (true) {
                                FabricDomain.EndpointHandles h = d.openEndpoint(16, false);
                                opened++;
                                d.closeEndpoint(h, FI_ADDR_NOTAVAIL, () -> { });
                            }
                        } catch (ResourceClosedException closed) {
                            return opened; // what every opener must end with once the close was asked for
                        }
                    }));
                }
                go.countDown();
                Thread.sleep(round % 5); // the close lands at a different point of the openers' work each round
                d.close();
                for (Future<Integer> opener : openers) {
                    assertThat(opener.get(30, TimeUnit.SECONDS)).isNotNegative();
                }
                assertThat(d.heldCount()).as("endpoints held after round %d", round).isZero();
            }
        } finally {
            threads.shutdownNow();
        }
    }

    private static FabricDomain tcpDomain() {
        Assumptions.assumeTrue(Libfabric.isAvailable(), "libfabric is not installed");
        try {
            return FabricDomain.open("tcp", FI_PROGRESS_MANUAL, 64);
        } catch (TransportUnavailableException e) {
            throw new TestAbortedException("no libfabric tcp provider here: " + e.getMessage());
        }
    }
}
