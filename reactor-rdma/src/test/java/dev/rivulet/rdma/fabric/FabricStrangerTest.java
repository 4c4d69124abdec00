package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.Messages;
import dev.rivulet.conformance.Pair;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.engine.ControlWord;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.rdma.libfabric.FiCqDataEntry;
import dev.rivulet.rdma.libfabric.FidCq;
import dev.rivulet.rdma.libfabric.FidEp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static dev.rivulet.rdma.libfabric.FiConstants.FI_EAGAIN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A stranger that learned a Rivulet endpoint's fabric address (it is no secret: anyone on the path sees it) sends it
 * messages straight through libfabric, skipping the bootstrap: none may reach {@code receive()}, cost a credit, or
 * disturb the real peer's traffic.
 */
@Timeout(60)
class FabricStrangerTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private final List<Transport> transports = new ArrayList<>();

    @BeforeEach
    void requireLibfabric() {
        assumeTrue(new FabricTransportProvider().availability().available(),
                () -> new FabricTransportProvider().availability().reason());
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
                .option("provider", "tcp"));
        transports.add(t);
        return t;
    }

    @Test
    void messagesFromAnAddressThatIsNotThePeerNeverReachReceive() throws Exception {
        FabricTransport server = open();
        FabricTransport client = open();
        Pair pair = Pair.connect(server, client, "fabric://127.0.0.1:0?provider=tcp");
        List<Long> received = new CopyOnWriteArrayList<>();
        pair.server().receive().subscribe(b -> {
            received.add(Messages.seq(b));
            b.release();
        });
        byte[] target = server.fabricName(pair.server());

        FabricDomain stranger = FabricDomain.open("tcp", dev.rivulet.rdma.libfabric.FiConstants.FI_PROGRESS_UNSPEC);
        FabricDomain.EndpointHandles h = stranger.openEndpoint(64, false);
        try (Arena arena = Arena.ofShared()) {
            long to = stranger.insert(target);
            MemorySegment buf = arena.allocate(64);
            Messages.fill(buf, 666);
            MemorySegment entries = FiCqDataEntry.allocateArray(arena, 8);
            int sent = 0;
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (sent < 16 && System.nanoTime() < deadline) {
                long rc = FidEp.senddata(h.ep(), buf, 64, MemorySegment.NULL,
                        ControlWord.encode(ControlWord.DATA, 1000), to, MemorySegment.NULL);
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
            // the real peer is unaffected and its messages alone arrive
            for (int i = 0; i < 4; i++) {
                pair.client().send(Messages.make(pair.client().memory(), i, 64)).block(TIMEOUT);
            }
            long end = System.nanoTime() + TIMEOUT.toNanos();
            while (received.size() < 4 && System.nanoTime() < end) {
                Thread.sleep(10);
            }
            assertThat(received).containsExactly(0L, 1L, 2L, 3L);
        } finally {
            stranger.closeEndpoint(h, dev.rivulet.rdma.libfabric.FiConstants.FI_ADDR_NOTAVAIL, () -> { });
            stranger.close();
        }
        pair.close();
    }
}
