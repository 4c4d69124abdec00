package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.Messages;
import dev.rivulet.conformance.Pair;
import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.core.metrics.TransportMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a libfabric listener commits for a peer that has not authenticated: eager buffers posted for it from a window
 * of four that opens one buffer per message it delivers (held from the listener's {@code security.listenerMemory}),
 * and a rendezvous message beyond its allowance read in pieces into a buffer that grows as they arrive, so that what
 * it announces costs nothing until it is sent.
 */
@Timeout(120)
class FabricReceiveBudgetTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final String SECRET = "rivulet-test-secret-0123456789";
    private static final int MIB = 1 << 20;

    private final List<Transport> transports = new ArrayList<>();
    private final List<Pair> pairs = new ArrayList<>();

    @BeforeEach
    void requireLibfabric() {
        Requirements.assume(new FabricTransportProvider().availability(), "libfabric");
        LeakDetector.enable();
        LeakDetector.reset();
    }

    @AfterEach
    void close() {
        pairs.forEach(Pair::close);
        transports.forEach(Transport::dispose);
        LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
        LeakDetector.disable();
    }

    private FabricTransport open(TransportConfig config) {
        FabricTransport t = (FabricTransport) new FabricTransportProvider()
                .open(config.option("fabric.provider", "tcp"));
        transports.add(t);
        return t;
    }

    private Pair connect(TransportConfig server, TransportConfig client) {
        Pair p = Pair.connect(open(server), open(client), "fabric://127.0.0.1:0?provider=tcp");
        pairs.add(p);
        return p;
    }

    private static EndpointStats stats(dev.rivulet.core.Endpoint ep) {
        return ep.stats().block(TIMEOUT);
    }

    private static void send(Pair p, int count, int size) {
        StepVerifier.create(p.client().send(Flux.range(0, count)
                .map(i -> Messages.make(p.client().memory(), i, size)))).verifyComplete();
    }

    @Test
    void anUnauthenticatedPeersWindowOpensAsItDelivers() throws Exception {
        Pair p = connect(TransportConfig.defaults(), TransportConfig.defaults());
        TransportMetrics server = ((FabricTransport) p.serverTransport()).stats();
        long connection = server.receiveCommitted(); // what the connection's own buffers hold from the admission
        assertThat(connection).isEqualTo(((FabricTransport) p.serverTransport()).connectionCost());
        // take(400) requests 400: after the first 124 the demand left still exceeds the full window
        StepVerifier received = StepVerifier.create(p.server().receive().take(400).count()).expectNext(400L)
                .expectComplete().verifyLater();
        Thread.sleep(300);
        assertThat(stats(p.server()).maxReceivesPosted()).as("eager buffers posted before anything arrived")
                .isEqualTo(4);
        send(p, 400, 64);
        received.verify(TIMEOUT);
        assertThat(stats(p.server()).maxReceivesPosted()).as("the window opened as messages arrived")
                .isEqualTo(TransportConfig.DEFAULT_QUEUE_DEPTH);
        assertThat(server.receiveCommitted() - connection).as("the window's buffers beyond four, held from the listener")
                .isEqualTo((TransportConfig.DEFAULT_QUEUE_DEPTH - 4) * (long) FabricTransport.DEFAULT_EAGER);
        p.client().dispose();
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (server.receiveCommitted() != 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertThat(server.receiveCommitted()).as("given back with the connection").isZero();
    }

    @Test
    void anAuthenticatedPeerGetsTheWholeWindowAtOnce() throws Exception {
        TransportConfig secret = TransportConfig.defaults().option("security.secret", SECRET);
        Pair p = connect(secret, secret);
        p.server().receive().subscribe(b -> { });
        Thread.sleep(300);
        assertThat(stats(p.server()).maxReceivesPosted()).isEqualTo(TransportConfig.DEFAULT_QUEUE_DEPTH);
    }

    @Test
    void aLargeMessageBeyondTheAllowanceIsReadInPiecesAndArrivesIntact() {
        Pair p = connect(TransportConfig.defaults(), TransportConfig.defaults());
        long connection = ((FabricTransport) p.serverTransport()).stats().receiveCommitted();
        StepVerifier received = StepVerifier.create(p.server().receive()
                        .map(b -> Messages.verify(b.segment(), 7, 16 * MIB)))
                .expectNext(true).thenCancel().verifyLater();
        StepVerifier.create(p.client().send(Messages.make(p.client().memory(), 7, 16 * MIB))).verifyComplete();
        received.verify(TIMEOUT);
        assertThat(((FabricTransport) p.serverTransport()).stats().receiveCommitted() - connection)
                .as("nothing committed ahead for the unauthenticated peer's 16 MiB").isLessThan(MIB);
    }

    @Test
    void theListenersTotalBoundsWhatItsPeersConnectionsAndWindowsHold() throws Exception {
        long cost = open(TransportConfig.defaults()).connectionCost();
        FabricTransport s = open(TransportConfig.defaults().option("security.listenerMemory",
                String.valueOf(cost + MIB)));
        Transport c = open(TransportConfig.defaults());
        Pair a = Pair.connect(s, c, "fabric://127.0.0.1:0?provider=tcp");
        pairs.add(a);
        StepVerifier received = StepVerifier.create(a.server().receive().take(200).count()).expectNext(200L)
                .expectComplete().verifyLater();
        send(a, 200, 64);
        received.verify(TIMEOUT);
        assertThat(s.stats().receiveCommitted()).isLessThanOrEqualTo(cost + MIB);
        assertThat(stats(a.server()).maxReceivesPosted()).as("4 + what the MiB left holds")
                .isEqualTo(4 + MIB / FabricTransport.DEFAULT_EAGER);
        // A second connection's own buffers do not fit any more: it is closed as soon as it is accepted.
        StepVerifier.create(c.connect(a.listener().address()))
                .expectError(dev.rivulet.core.error.TransportException.class).verify(TIMEOUT);
    }
}
