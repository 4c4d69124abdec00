package dev.rivulet.rio.uring;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.admission.AdmissionControl;
import dev.rivulet.core.security.SecuritySettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sockets that connect and say nothing, renewed before their deadline, must not lock legitimate clients out of an
 * io_uring listener: per-source bounds keep one address from holding more than its share of the set-up slots, and a
 * newcomer takes the slot of the oldest unfinished set-up. Other addresses on loopback (127.0.0.2 and up) stand in
 * for other hosts.
 */
@Timeout(120)
class UringLockoutTest extends RawPeerHarness {

    /** The silent sockets' deadline: far beyond what a served client may wait. */
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    /**
     * As many silent sockets as this process may open, up to {@code wanted}: each costs a descriptor here, and the
     * listener in this same process holds one for each it has not closed yet.
     */
    private static int silentSockets(int wanted) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
            if (line.startsWith("Max open files")) {
                String soft = line.substring("Max open files".length()).trim().split("\\s+")[0];
                long limit = soft.equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(soft);
                return (int) Math.min(wanted, (limit - 512) / 2);
            }
        }
        return wanted;
    }

    /** Connects a Rivulet client and has one message served; returns how long the connect took, in ms. */
    private long served(Transport client) throws Exception {
        long start = System.nanoTime();
        Endpoint ep = client.connect(listener.address()).block(TIMEOUT);
        long took = (System.nanoTime() - start) / 1_000_000;
        Endpoint served = accepted.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(served).isNotNull();
        StepVerifier received = StepVerifier.create(served.receive().take(1).count()).expectNext(1L)
                .expectComplete().verifyLater();
        StepVerifier.create(ep.send(Flux.just(ep.memory().allocate(64).length(64)))).expectComplete()
                .verify(TIMEOUT);
        received.verify(TIMEOUT);
        ep.dispose();
        return took;
    }

    @Test
    void aThousandSilentSocketsFromOneAddressDoNotKeepAClientFromAnotherOut() throws Exception {
        listen(TransportConfig.defaults().security(SecuritySettings.defaults().handshakeTimeout(DEADLINE)));
        Transport client = open(TransportConfig.defaults());
        long baseline = served(client);
        InetAddress attacker = InetAddress.getByName("127.0.0.2");
        int n = silentSockets(1000);
        for (int i = 0; i < n; i++) {
            connectRaw(0, attacker);
        }
        Object source = AdmissionControl.sourceOf(attacker);
        awaitTrue("every silent socket admitted or evicted",
                () -> admission().connections(source) + admission().evicted() == n);
        assertThat(admission().connections(source)).as("set-ups one address holds")
                .isEqualTo(SecuritySettings.defaults().maxHandshakesPerSource());
        long took = served(client);
        assertThat(took).as("connect with %d silent sockets open (baseline %d ms)", n, baseline)
                .isLessThan(Math.max(3_000, 10 * baseline));
    }

    @Test
    void silentSocketsFromManyAddressesMakeRoomForANewcomer() throws Exception {
        listen(TransportConfig.defaults().security(SecuritySettings.defaults().handshakeTimeout(DEADLINE)));
        Transport client = open(TransportConfig.defaults());
        int n = silentSockets(400);
        for (int i = 0; i < n; i++) {
            connectRaw(0, InetAddress.getByName("127.0.1." + (1 + i % 200)));
        }
        awaitTrue("every silent socket admitted or evicted",
                () -> admission().connections() + admission().evicted() == n);
        assertThat(admission().handshakes()).isEqualTo(SecuritySettings.defaults().maxHandshakes());
        long took = served(client);
        assertThat(took).as("connect with %d silent sockets from 200 addresses", n).isLessThan(3_000);
        assertThat(admission().refused()).isZero();
    }

    @Test
    void connectionsBeyondTheSourceBoundAreRefusedWhileOtherSourcesAreServed() throws Exception {
        listen(TransportConfig.defaults().security(SecuritySettings.defaults().maxConnectionsPerSource(3)));
        InetAddress crowded = InetAddress.getByName("127.0.0.3");
        for (int i = 0; i < 3; i++) {
            RawStreamPeer p = connectRaw(0, crowded);
            p.handshake(SecuritySettings.defaults());
            assertThat(accepted.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isNotNull();
        }
        RawStreamPeer fourth = connectRaw(0, crowded);
        assertThat(fourth.awaitClosed(TIMEOUT)).as("the fourth from one address is closed at once").isTrue();
        assertThat(admission().refused()).isEqualTo(1);
        served(open(TransportConfig.defaults()));
    }
}
