package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.conformance.Messages;
import dev.rivulet.conformance.Pair;
import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.rdma.fabric.sys.FiCqDataEntry;
import dev.rivulet.rdma.fabric.sys.FidCq;
import dev.rivulet.rdma.fabric.sys.FidEp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_ADDR_NOTAVAIL;
import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_EAGAIN;
import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_PROGRESS_UNSPEC;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A stranger that learned a Rivulet endpoint's fabric address (it is no secret: anyone on the path sees it, and a
 * tcp endpoint's port can be found by scanning) sends it messages straight through libfabric, skipping the
 * bootstrap: data words granting itself credits, bare credit words, and one message larger than any the peer sends.
 * None may reach {@code receive()}, count as a credit, or end the endpoint; the real peer's traffic goes on.
 *
 * <p>The stranger opens its own fabric, domain and AV, as another program would, so the endpoint's AV does not know
 * it. shm is not run here: libfabric 1.17's shm reports a sender its receiver does not know as {@code fi_addr_t} 0,
 * the first peer of the receiver's AV, so the endpoint whose peer holds 0 cannot tell the stranger from its peer
 * (and any process of the same user can write an shm endpoint's region, or its memory, anyway).
 */
@Timeout(60)
class FabricStrangerTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final int STRANGER_MESSAGES = 16;

    abstract static class OnProvider {
        private final List<Transport> transports = new ArrayList<>();

        abstract String provider();

        @BeforeEach
        void requireLibfabric() {
            Requirements.assume(new FabricTransportProvider().availability(), "libfabric");
            LeakDetector.enable();
            LeakDetector.reset();
        }

        @AfterEach
        void close() {
            transports.forEach(Transport::dispose);
            LeakDetector.disable();
        }

        private FabricTransport open() {
            FabricTransport t = (FabricTransport) new FabricTransportProvider().open(TransportConfig.defaults()
                    .option("fabric.provider", provider()));
            transports.add(t);
            return t;
        }

        @Test
        void messagesFromAnAddressThatIsNotThePeerNeverReachReceiveNorCountAsCredits() throws Exception {
            FabricTransport server = open();
            FabricTransport client = open();
            Pair pair = Pair.connect(server, client, "fabric://127.0.0.1:0?provider=" + provider());
            List<Long> received = new CopyOnWriteArrayList<>();
            pair.server().receive().subscribe(b -> received.add(Messages.seq(b)));
            // The client never asks for messages, so it grants the server no credit: any the server counts came
            // from the stranger.
            int sent = strangerSends(server.fabricName(pair.server()), FabricTransport.DEFAULT_EAGER);
            assertThat(sent).as("the stranger's messages left its endpoint").isGreaterThan(0);

            for (int i = 0; i < 4; i++) {
                pair.client().send(Messages.make(pair.client().memory(), i, 64)).block(TIMEOUT);
            }
            long end = System.nanoTime() + TIMEOUT.toNanos();
            while (received.size() < 4 && System.nanoTime() < end) {
                Thread.sleep(10);
            }
            assertThat(received).as("only the peer's messages, in order").containsExactly(0L, 1L, 2L, 3L);
            EndpointStats stats = pair.server().stats().block(TIMEOUT);
            assertThat(stats.creditsReceived()).as("credits the stranger granted itself").isZero();
            assertThat(stats.messagesReceived()).isEqualTo(4);
            assertThat(pair.server().isDisposed()).as("a stranger's oversized message does not end the endpoint")
                    .isFalse();
            pair.close();
            LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
        }

        /**
         * Sends, from an endpoint of a fabric of its own, {@link #STRANGER_MESSAGES} data words with a credit grant
         * each, as many credit words, and one message of {@code eager + 1} bytes; returns how many left.
         */
        private int strangerSends(byte[] target, int eager) throws InterruptedException {
            FabricDomain stranger = FabricDomain.open(provider(), FI_PROGRESS_UNSPEC,
                    FabricTransport.queueSize(TransportConfig.defaults()));
            FabricDomain.EndpointHandles h = stranger.openEndpoint(64, false);
            int sent = 0;
            try (Arena arena = Arena.ofShared()) {
                long to = stranger.insert(target);
                MemorySegment small = arena.allocate(64);
                Messages.fill(small, 666);
                MemorySegment big = arena.allocate(eager + 1);
                MemorySegment entries = FiCqDataEntry.allocateArray(arena, 8);
                long deadline = System.nanoTime() + TIMEOUT.toNanos();
                while (sent < 2 * STRANGER_MESSAGES + 1 && System.nanoTime() < deadline) {
                    long rc;
                    if (sent < STRANGER_MESSAGES) {
                        rc = FidEp.senddata(h.ep(), small, 64, MemorySegment.NULL,
                                ControlWord.encode(ControlWord.DATA, 1000), to, MemorySegment.NULL);
                    } else if (sent < 2 * STRANGER_MESSAGES) {
                        rc = FidEp.injectdata(h.ep(), MemorySegment.NULL, 0,
                                ControlWord.encode(ControlWord.CREDIT, 1000), to);
                    } else {
                        rc = FidEp.senddata(h.ep(), big, eager + 1, MemorySegment.NULL,
                                ControlWord.encode(ControlWord.DATA, 1), to, MemorySegment.NULL);
                    }
                    if (rc == 0) {
                        sent++;
                    } else if (rc != -FI_EAGAIN) {
                        break; // refused outright: even better
                    }
                    FidCq.read(h.cq(), entries, 8);
                }
                for (int i = 0; i < 200; i++) {
                    FidCq.read(h.cq(), entries, 8);
                    Thread.sleep(5);
                }
            } finally {
                stranger.closeEndpoint(h, FI_ADDR_NOTAVAIL, () -> { });
                stranger.close();
            }
            return sent;
        }
    }

    @Nested
    class Tcp extends OnProvider {
        @Override
        String provider() {
            return "tcp";
        }
    }

    @Nested
    class Sockets extends OnProvider {
        @Override
        String provider() {
            return "sockets";
        }
    }
}
