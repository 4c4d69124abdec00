package dev.rivulet.rio.uring;

import dev.rivulet.conformance.TestCertificates;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.error.AuthenticationException;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.rio.stream.FrameKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.rivulet.rio.uring.RawStreamPeer.concat;
import static dev.rivulet.rio.uring.RawStreamPeer.header;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * How an io_uring listener sets connections up: nothing is served before the handshake passed, a wrong or missing
 * secret or certificate is refused with a typed error while good clients go on, a hello that never completes is cut
 * at the deadline, a flood beyond the admission bounds is closed at once while established connections keep
 * working, and no descriptor, thread or buffer is left behind by any connection that fails on the way.
 */
@Timeout(120)
class UringConnectionSetUpTest extends RawPeerHarness {

    private static final String SECRET = "a shared secret of the tests";

    private Transport open(SecuritySettings security) {
        return open(TransportConfig.defaults().security(security));
    }

    private void listen(SecuritySettings security) {
        listen(TransportConfig.defaults().security(security));
    }

    /** Sends one message from {@code client} and checks the listener's side of it receives it. */
    private void exchange(Endpoint client, String text) throws InterruptedException {
        Endpoint ep = accepted.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(ep).as("an endpoint was accepted").isNotNull();
        StepVerifier received = StepVerifier.create(ep.receive().asString().take(1))
                .expectNext(text).expectComplete().verifyLater();
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        client.send(client.memory().allocate(bytes.length).write(bytes)).block(TIMEOUT);
        received.verify(TIMEOUT);
    }

    // ============================================================================================ handshake

    @Test
    void framesSentBeforeTheHandshakeAreNeverServed() throws Exception {
        listen(SecuritySettings.defaults());
        long outstanding = server.memory().buffers().outstanding();
        long registered = server.memory().buffers().registeredBytes();
        RawStreamPeer p = connectRaw();
        // A well-formed DATA frame announcing 1 MiB, as the very first bytes: not a hello.
        p.write(concat(header(FrameKind.MESSAGE, ControlWord.encode(ControlWord.DATA, 0), 1 << 20),
                new byte[8192]));
        assertThat(p.awaitClosed(TIMEOUT)).as("the listener closes the connection").isTrue();
        awaitTrue("the connection to be forgotten", () -> admission().connections() == 0);
        assertThat(accepted).as("no endpoint was made").isEmpty();
        assertThat(server.memory().buffers().outstanding()).isEqualTo(outstanding);
        assertThat(server.memory().buffers().registeredBytes()).isEqualTo(registered);
    }

    @Test
    void aWrongOrMissingSecretIsRefusedAndTheListenerKeepsServing() throws Exception {
        SecuritySettings good = SecuritySettings.defaults().secret(SECRET.getBytes(StandardCharsets.UTF_8));
        listen(good);
        Transport wrong = open(SecuritySettings.defaults().secret("another secret entirely".getBytes(
                StandardCharsets.UTF_8)));
        StepVerifier.create(wrong.connect(listener.address())).expectError(AuthenticationException.class)
                .verify(TIMEOUT);
        Transport none = open(SecuritySettings.defaults());
        StepVerifier.create(none.connect(listener.address())).expectError(AuthenticationException.class)
                .verify(TIMEOUT);
        Endpoint client = open(good).connect(listener.address()).block(TIMEOUT);
        exchange(client, "authenticated");
        assertThat(accepted).as("only the good client became an endpoint").isEmpty();
    }

    @Test
    void aClientWithASecretRefusesAListenerWithout() throws Exception {
        listen(SecuritySettings.defaults());
        Transport client = open(SecuritySettings.defaults().secret(SECRET.getBytes(StandardCharsets.UTF_8)));
        StepVerifier.create(client.connect(listener.address())).expectError(AuthenticationException.class)
                .verify(TIMEOUT);
    }

    @Test
    void aHelloThatNeverCompletesIsCutAtTheDeadline() throws Exception {
        listen(SecuritySettings.defaults().handshakeTimeout(Duration.ofMillis(500)));
        RawStreamPeer p = connectRaw();
        long start = System.nanoTime();
        p.write(new byte[] {1, 0}); // the first two bytes of a hello's header, then nothing
        assertThat(p.awaitClosed(TIMEOUT)).isTrue();
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(tookMillis).as("closed at the deadline, not before").isGreaterThanOrEqualTo(400);
        assertThat(tookMillis).as("closed at the deadline").isLessThan(10_000);
        awaitTrue("the connection to be forgotten", () -> admission().connections() == 0);
    }

    @Test
    void aFloodBeyondTheAdmissionBoundsIsClosedAtOnceWhileEstablishedConnectionsWork() throws Exception {
        listen(SecuritySettings.defaults().maxHandshakes(3).maxConnections(5)
                .handshakeTimeout(Duration.ofSeconds(30)));
        Transport clients = open(SecuritySettings.defaults());
        Endpoint established = clients.connect(listener.address()).block(TIMEOUT);
        Endpoint served = accepted.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        // Ten connections that never say hello: each beyond the three set-up slots takes the slot of the oldest, so
        // the first seven are shut at once and the last three are left to their deadline.
        List<RawStreamPeer> silent = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            silent.add(connectRaw());
        }
        awaitTrue("seven set-ups evicted", () -> admission().evicted() == 7);
        assertThat(admission().handshakes()).isEqualTo(3);
        List<Integer> closedAtOnce = new ArrayList<>();
        for (int i = 0; i < silent.size(); i++) {
            if (silent.get(i).awaitClosed(Duration.ofMillis(200))) {
                closedAtOnce.add(i);
            }
        }
        assertThat(closedAtOnce).as("connections closed at once: the oldest").containsExactly(0, 1, 2, 3, 4, 5, 6);
        assertThat(admission().refused()).isZero();

        StepVerifier received = StepVerifier.create(served.receive().take(50).count())
                .expectNext(50L).expectComplete().verifyLater();
        StepVerifier.create(established.send(Flux.range(0, 50)
                        .map(i -> established.memory().allocate(64).length(64))))
                .expectComplete().verify(TIMEOUT);
        received.verify(TIMEOUT);
        for (RawStreamPeer p : silent) {
            p.close();
        }
        awaitTrue("the silent connections to be forgotten", () -> admission().connections() == 1);

        // Four more good clients reach maxConnections (5); the next one is refused until one of them leaves.
        List<Endpoint> more = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            more.add(clients.connect(listener.address()).block(TIMEOUT));
            assertThat(accepted.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isNotNull();
        }
        StepVerifier.create(clients.connect(listener.address())).expectError(ConnectionRefusedException.class)
                .verify(TIMEOUT);
        more.getFirst().dispose();
        awaitTrue("a connection to close", () -> admission().connections() == 4);
        exchange(clients.connect(listener.address()).block(TIMEOUT), "room again");
    }

    @Test
    void failedSetUpsLeaveNoDescriptorBehind() throws Exception {
        listen(SecuritySettings.defaults().secret(SECRET.getBytes(StandardCharsets.UTF_8))
                .handshakeTimeout(Duration.ofMillis(300)));
        Transport wrong = open(SecuritySettings.defaults().secret("not the shared secret".getBytes(
                StandardCharsets.UTF_8)));
        // Warm up: whatever the first connection opens once (classes, pool slabs) is not counted.
        StepVerifier.create(wrong.connect(listener.address())).expectError(AuthenticationException.class)
                .verify(TIMEOUT);
        awaitTrue("set-up to end", () -> admission().connections() == 0);
        long before = openDescriptors();
        for (int i = 0; i < 20; i++) {
            StepVerifier.create(wrong.connect(listener.address())).expectError(AuthenticationException.class)
                    .verify(TIMEOUT);
            RawStreamPeer garbage = connectRaw();
            garbage.write(new byte[] {42, 42, 42, 42});
            garbage.awaitClosed(TIMEOUT);
            garbage.close();
            connectRaw().close(); // gone before its hello
            connectRaw(); // silent until the deadline
        }
        for (RawStreamPeer p : peers) {
            p.close();
        }
        awaitTrue("every set-up to end", () -> admission().connections() == 0);
        awaitTrue("the descriptors to go back to " + before, () -> openDescriptors() <= before);
        assertThat(accepted).isEmpty();
    }

    // ============================================================================================ TLS

    @Test
    void tlsConnectionsCarryMessagesAndAStrangerCertificateIsRefused() throws Exception {
        // A plain client reads the listener's TLS records as a hello that never completes: the deadline ends it.
        listen(TestCertificates.settings("server").handshakeTimeout(Duration.ofSeconds(2)));
        Endpoint client = open(TestCertificates.settings("client")).connect(listener.address()).block(TIMEOUT);
        exchange(client, "over TLS");

        StepVerifier.create(open(TestCertificates.settings("stranger")).connect(listener.address()))
                .expectError(AuthenticationException.class).verify(TIMEOUT);
        StepVerifier.create(open(SecuritySettings.defaults().handshakeTimeout(Duration.ofSeconds(2)))
                        .connect(listener.address()))
                .expectError(TransportException.class).verify(TIMEOUT);
        Endpoint again = open(TestCertificates.settings("client")).connect(listener.address()).block(TIMEOUT);
        exchange(again, "still serving");
    }

    @Test
    void tlsAndASecretTogether() throws Exception {
        byte[] secret = SECRET.getBytes(StandardCharsets.UTF_8);
        listen(TestCertificates.settings("server").secret(secret));
        StepVerifier.create(open(TestCertificates.settings("client")).connect(listener.address()))
                .expectError(AuthenticationException.class).verify(TIMEOUT);
        Endpoint client = open(TestCertificates.settings("client").secret(secret)).connect(listener.address())
                .block(TIMEOUT);
        exchange(client, "both");
    }
}
