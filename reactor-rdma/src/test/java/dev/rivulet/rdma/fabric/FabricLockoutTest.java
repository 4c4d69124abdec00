package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.Messages;
import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.admission.AdmissionControl;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.test.StepVerifier;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Silent bootstrap connections, renewed before their deadline, must not lock legitimate clients out of a libfabric
 * listener: one address holds at most its share of the set-up slots, and a newcomer takes the slot of the oldest
 * unfinished set-up. Other loopback addresses (127.0.0.2 and up) stand in for other hosts.
 */
@Timeout(120)
class FabricLockoutTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final List<Transport> transports = new ArrayList<>();
    private final List<Socket> silent = new ArrayList<>();

    @BeforeEach
    void requireLibfabric() {
        Requirements.assume(new FabricTransportProvider().availability(), "libfabric");
    }

    @AfterEach
    void close() throws IOException {
        for (Socket s : silent) {
            s.close();
        }
        transports.forEach(Transport::dispose);
    }

    private FabricTransport open(TransportConfig config) {
        FabricTransport t = (FabricTransport) new FabricTransportProvider()
                .open(config.option("fabric.provider", "tcp"));
        transports.add(t);
        return t;
    }

    private void connectSilently(FabricListener l, InetAddress from) throws IOException {
        URI u = URI.create(l.address());
        Socket s = new Socket();
        silent.add(s);
        s.bind(new InetSocketAddress(from, 0));
        s.connect(new InetSocketAddress(u.getHost(), u.getPort()));
    }

    /** Connects a client and has one message served; returns how long the connect took, in ms. */
    private long served(FabricListener l, BlockingQueue<Endpoint> accepted) throws InterruptedException {
        Transport client = open(TransportConfig.defaults());
        long start = System.nanoTime();
        Endpoint ep = client.connect(l.address()).block(TIMEOUT);
        long took = (System.nanoTime() - start) / 1_000_000;
        Endpoint server = accepted.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(server).isNotNull();
        StepVerifier.create(server.receive().next().map(Messages::seq)
                        .zipWith(ep.send(Messages.make(ep.memory(), 42, 64)).thenReturn(1), (s, x) -> s))
                .expectNext(42L).verifyComplete();
        return took;
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(10);
        }
    }

    @Test
    void silentSocketsFromOneAddressAndFromManyDoNotKeepAClientOut() throws Exception {
        FabricTransport server = open(TransportConfig.defaults().option("security.handshakeTimeout", "60s"));
        FabricListener l = (FabricListener) server.bind("fabric://127.0.0.1:0?provider=tcp").block(TIMEOUT);
        BlockingQueue<Endpoint> accepted = new LinkedBlockingQueue<>();
        l.accepted().subscribe(accepted::add);
        long baseline = served(l, accepted);

        InetAddress attacker = InetAddress.getByName("127.0.0.2");
        for (int i = 0; i < 500; i++) {
            connectSilently(l, attacker);
        }
        Object source = AdmissionControl.sourceOf(attacker);
        awaitTrue(() -> l.admission().connections(source) + l.admission().evicted() == 500,
                "every silent socket admitted or evicted");
        assertThat(l.admission().connections(source)).isEqualTo(16);
        assertThat(served(l, accepted)).as("connect beside 500 silent sockets of one address (baseline %d ms)",
                baseline).isLessThan(Math.max(3_000, 10 * baseline));

        for (int i = 0; i < 300; i++) {
            connectSilently(l, InetAddress.getByName("127.0.1." + (1 + i % 150)));
        }
        awaitTrue(() -> l.admission().evicted() >= 500 - 16 + 300 - 64 + 16, "the oldest set-ups evicted");
        assertThat(l.admission().handshakes()).isEqualTo(64);
        assertThat(served(l, accepted)).as("connect beside silent sockets of 150 addresses").isLessThan(3_000);
        assertThat(l.admission().refused()).isZero();
    }
}
