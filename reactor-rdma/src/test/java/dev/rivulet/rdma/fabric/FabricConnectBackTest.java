package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.Messages;
import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.HandshakeException;
import dev.rivulet.core.handshake.Handshake;
import dev.rivulet.core.handshake.SocketHandshakeIo;
import dev.rivulet.core.security.SecuritySettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.test.StepVerifier;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A client that completes the bootstrap handshake honestly but names, as its fabric endpoint, an address it does not
 * own: a plain TCP service on the listener's host (the "victim"), at 127.0.0.1 or at the host's own fabric address.
 * Before its fabric endpoint proved itself the listener's provider must send nothing anywhere, so the victim sees no
 * connection at all, whether the client stays silent on the fabric or sends the right token from the endpoint it
 * really has. The set-up fails with a {@link HandshakeException} at the deadline, the client gets no READY, and the
 * listener keeps nothing: no endpoint, no admission ticket, no descriptor. A hello from the named address with the
 * wrong token ends the set-up at once.
 */
@Timeout(120)
class FabricConnectBackTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final Duration SET_UP_DEADLINE = Duration.ofSeconds(3);
    private static final Path OWN_FDS = Path.of("/proc/self/fd");

    private final List<Transport> transports = new ArrayList<>();
    private final BlockingQueue<Exception> failures = new LinkedBlockingQueue<>();
    private final BlockingQueue<Endpoint> accepted = new LinkedBlockingQueue<>();
    private FabricTransport server;
    private FabricTransport client;
    private FabricListener listener;

    @BeforeEach
    void setUp() throws Exception {
        Requirements.assume(new FabricTransportProvider().availability(), "libfabric");
        assumeTrue(Files.isDirectory(OWN_FDS), "counts descriptors in /proc/self/fd");
        TransportConfig config = TransportConfig.defaults()
                .option("security.handshakeTimeout", SET_UP_DEADLINE.toMillis() + "ms");
        server = open(config);
        client = open(TransportConfig.defaults());
        listener = (FabricListener) server.bind("fabric://127.0.0.1:0?provider=tcp").block(TIMEOUT);
        listener.onSetUpFailure(failures::add);
        listener.accepted().subscribe(accepted::add);
        // One real connection first, so what a connection opens once per process is there before counting.
        roundTrip(1);
    }

    @AfterEach
    void close() {
        transports.forEach(Transport::dispose);
    }

    private FabricTransport open(TransportConfig config) {
        FabricTransport t = (FabricTransport) new FabricTransportProvider()
                .open(config.option("fabric.provider", "tcp"));
        transports.add(t);
        return t;
    }

    @Test
    void aSilentClientNamingALoopbackServiceGetsNoConnectionMadeToIt() throws Exception {
        try (ServerSocket victim = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            namesTheVictimAndIsDropped(victim, sockaddr(InetAddress.getLoopbackAddress(), victim.getLocalPort()),
                    false);
        }
    }

    @Test
    void aClientSendingTheTokenFromItsRealEndpointStillGetsNoConnectionMadeToTheLoopbackServiceItNamed()
            throws Exception {
        try (ServerSocket victim = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            namesTheVictimAndIsDropped(victim, sockaddr(InetAddress.getLoopbackAddress(), victim.getLocalPort()),
                    true);
        }
    }

    @Test
    void aClientNamingAnotherPortOfItsOwnHostGetsNoConnectionMadeToIt() throws Exception {
        // The host's own fabric address (where the provider binds, and so where a local client's name points):
        // a loopback client may name it, and the victim listens on it.
        InetAddress own = addressOf(server.domain().sampleName());
        try (ServerSocket victim = new ServerSocket()) {
            victim.bind(new InetSocketAddress(own, 0));
            namesTheVictimAndIsDropped(victim, sockaddr(own, victim.getLocalPort()), true);
        }
    }

    @Test
    void aHelloFromTheNamedAddressWithTheWrongTokenEndsTheSetUp() throws Exception {
        long fdsBefore = openDescriptors();
        FabricDomain.EndpointHandles ours = client.fabricEndpoint();
        FabricHello hello = null;
        long peer = -1;
        try (Socket s = bootstrap()) {
            FabricHello.Answer answer = handshake(s, ours.name());
            peer = client.connectPeer(ours, answer.name());
            byte[] wrong = answer.token();
            wrong[0] ^= 1;
            hello = FabricHello.toListener(client.domain(), client.memory(), ours, peer, wrong);
            hello.send(System.nanoTime() + TIMEOUT.toNanos(), () -> false);
            assertThat(failures.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(HandshakeException.class)
                    .hasMessageContaining("token");
            s.setSoTimeout((int) TIMEOUT.toMillis());
            assertThat(s.getInputStream().read()).as("no READY: the listener closed the connection").isEqualTo(-1);
        } finally {
            client.closeHandles(ours, peer, hello);
        }
        assertNothingKept(fdsBefore);
        roundTrip(2);
    }

    /**
     * Hands the listener {@code name} through a real handshake; then, when {@code sendHello}, sends the token it got
     * from a real endpoint of the client's (whose name is not {@code name}). Checks that the victim saw nothing and
     * the listener dropped the client at the deadline keeping nothing, and that a real client is served after.
     */
    private void namesTheVictimAndIsDropped(ServerSocket victim, byte[] name, boolean sendHello) throws Exception {
        long fdsBefore = openDescriptors();
        long openedBefore = server.domain().openedCount();
        FabricDomain.EndpointHandles ours = sendHello ? client.fabricEndpoint() : null;
        FabricHello hello = null;
        long peer = -1;
        long start = System.nanoTime(); // before the listener's set-up deadline starts
        int answered;
        Duration waited;
        Endpoint served;
        try (Socket s = bootstrap()) {
            FabricHello.Answer answer = handshake(s, name);
            assertThat(server.domain().openedCount()).as("one endpoint opened for the client")
                    .isEqualTo(openedBefore + 1);
            if (sendHello) {
                peer = client.connectPeer(ours, answer.name());
                hello = FabricHello.toListener(client.domain(), client.memory(), ours, peer, answer.token());
                hello.send(System.nanoTime() + TIMEOUT.toNanos(), () -> false);
            }
            s.setSoTimeout((int) TIMEOUT.toMillis());
            answered = s.getInputStream().read();
            waited = Duration.ofNanos(System.nanoTime() - start);
            // Had the set-up gone through, the endpoint would be at work (the bootstrap connection still open):
            // receiving grants the client credits, and it sends.
            served = accepted.poll(200, TimeUnit.MILLISECONDS);
            if (served != null) {
                Endpoint e = served;
                e.receive().subscribe(b -> { }, x -> { });
                e.send(Messages.make(e.memory(), 9, 64)).subscribe(null, x -> { });
            }
            victim.setSoTimeout(1_500); // a dial would have come by now
            try (Socket dialled = victim.accept()) {
                throw new AssertionError("the listener's provider connected to the address the client named, from "
                        + dialled.getRemoteSocketAddress());
            } catch (SocketTimeoutException expected) {
                // nothing came
            }
        } finally {
            if (ours != null) {
                client.closeHandles(ours, peer, hello);
            }
        }
        assertThat(served).as("the client was not served").isNull();
        assertThat(answered).as("no READY: the listener closed the connection").isEqualTo(-1);
        assertThat(waited).as("dropped at the set-up deadline, not before").isGreaterThanOrEqualTo(SET_UP_DEADLINE);
        assertThat(failures.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(HandshakeException.class)
                .hasMessageContaining("did not arrive from the address it named");
        assertNothingKept(fdsBefore);
        roundTrip(3);
    }

    private void assertNothingKept(long fdsBefore) throws Exception {
        awaitTrue(() -> listener.admission().connections() == 0 && listener.admission().handshakes() == 0,
                "the ticket is back");
        awaitTrue(() -> server.domain().heldCount() == 0, "the endpoint opened for the client is let go");
        awaitTrue(() -> openDescriptors() <= fdsBefore, "every descriptor opened for it is closed");
        assertThat(accepted).as("nothing reached accepted()").isEmpty();
        assertThat(listener.isDisposed()).isFalse();
    }

    private Socket bootstrap() throws IOException {
        URI u = URI.create(listener.address());
        return new Socket(u.getHost(), u.getPort());
    }

    private static FabricHello.Answer handshake(Socket s, byte[] name) throws IOException {
        return FabricHello.Answer.parse(Handshake.client(new SocketHandshakeIo(s, System.nanoTime()
                        + TIMEOUT.toNanos()), SecuritySettings.defaults(), Handshake.KIND_FABRIC,
                Bootstrap.service("tcp", FabricTransport.DEFAULT_EAGER), name));
    }

    /** A real client connects, sends one message and closes: the listener serves it. */
    private void roundTrip(long seq) throws Exception {
        Endpoint c = client.connect(listener.address()).block(TIMEOUT);
        Endpoint a = accepted.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(a).isNotNull();
        StepVerifier.create(a.receive().next().map(Messages::seq)
                        .zipWith(c.send(Messages.make(c.memory(), seq, 64)).thenReturn(1), (x, y) -> x))
                .expectNext(seq).verifyComplete();
        c.dispose();
        awaitTrue(() -> listener.admission().connections() == 0 && server.domain().heldCount() == 0,
                "the connection is gone on the listener's side");
    }

    /** A sockaddr_in / sockaddr_in6 as libfabric's tcp provider names endpoints (family in host order). */
    static byte[] sockaddr(InetAddress ip, int port) {
        boolean v4 = ip.getAddress().length == 4;
        ByteBuffer b = ByteBuffer.allocate(v4 ? 16 : 28).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) (v4 ? 2 : 10));
        b.order(ByteOrder.BIG_ENDIAN).putShort((short) port);
        if (!v4) {
            b.putInt(0); // flow info
        }
        b.put(ip.getAddress());
        return b.array();
    }

    static InetAddress addressOf(byte[] sockaddr) throws IOException {
        boolean v4 = sockaddr[0] == 2;
        return InetAddress.getByAddress(v4 ? Arrays.copyOfRange(sockaddr, 4, 8) : Arrays.copyOfRange(sockaddr, 8, 24));
    }

    private static long openDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(OWN_FDS)) {
            return fds.count();
        }
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private static void awaitTrue(Check condition, String what) throws Exception {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.holds()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(10);
        }
    }
}
