package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.conformance.Messages;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.handshake.Handshake;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.core.handshake.SocketHandshakeIo;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.test.StepVerifier;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A client that completes the connection handshake, so the listener opened a fabric endpoint for it and put the
 * client's name in its address vector, and then never sends its fabric hello ({@link FabricHello}). The listener must
 * drop it at the set-up deadline (not before: the hello may come late on a slow path) and keep nothing of it: no
 * endpoint, no descriptor, no set-up thread, no admission ticket; nothing may reach {@code accepted()}, and the client
 * gets no READY.
 */
@Timeout(120)
class FabricListenerReadyDeadlineTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final Duration SET_UP_DEADLINE = Duration.ofSeconds(1);
    private static final Path OWN_FDS = Path.of("/proc/self/fd");

    private final List<Transport> transports = new ArrayList<>();
    private final List<Thread> setUpThreads = new CopyOnWriteArrayList<>();
    private FabricListener listener;

    @BeforeEach
    void requireLibfabric() {
        Requirements.assume(new FabricTransportProvider().availability(), "libfabric");
        assumeTrue(Files.isDirectory(OWN_FDS), "counts descriptors in /proc/self/fd");
    }

    @AfterEach
    void close() {
        if (listener != null) {
            listener.dispose();
        }
        transports.forEach(Transport::dispose);
    }

    private FabricTransport open(TransportConfig config) {
        FabricTransport t = (FabricTransport) new FabricTransportProvider()
                .open(config.option("fabric.provider", "tcp"));
        transports.add(t);
        return t;
    }

    /** A listener as bind makes it, whose set-up threads (real virtual threads) the test can watch end. */
    private FabricListener listen(FabricTransport server, TransportConfig config) throws IOException {
        ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        ThreadFactory real = Thread.ofVirtual().name("rivulet-fabric-handshake").factory();
        ThreadFactory watched = r -> {
            Thread t = real.newThread(r);
            setUpThreads.add(t);
            return t;
        };
        listener = new FabricListener(server, socket, new FabricAddress("127.0.0.1", socket.getLocalPort(), "tcp")
                .uri(), config.security(), watched);
        listener.start();
        return listener;
    }

    private static long take(Buffer b) {
        return Messages.seq(b); // lent by receive(): copied out here
    }

    private static long openDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(OWN_FDS)) {
            return fds.count();
        }
    }

    @Test
    void aClientThatNeverSendsReadyIsDroppedAtTheDeadlineLeavingNothingBehind() throws Exception {
        TransportConfig config = TransportConfig.defaults()
                .option("security.handshakeTimeout", SET_UP_DEADLINE.toMillis() + "ms");
        FabricTransport server = open(config);
        FabricTransport client = open(TransportConfig.defaults());
        FabricListener l = listen(server, config);
        BlockingQueue<Endpoint> accepted = new LinkedBlockingQueue<>();
        l.accepted().subscribe(accepted::add);

        // One real connection first, so everything a connection opens once per process (provider threads, pollers,
        // epoll sets) is there before the count of descriptors is taken.
        Endpoint warm = client.connect(l.address()).block(TIMEOUT);
        Endpoint warmServer = accepted.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(warmServer).isNotNull();
        StepVerifier.create(warmServer.receive().next().map(FabricListenerReadyDeadlineTest::take)
                        .zipWith(warm.send(Messages.make(warm.memory(), 1, 64)).thenReturn(1), (s, x) -> s))
                .expectNext(1L).verifyComplete();
        warm.dispose();
        awaitTrue(() -> l.admission().connections() == 0 && server.domain().heldCount() == 0,
                "the warm-up connection is gone on the listener's side");
        awaitTrue(() -> setUpThreads.stream().noneMatch(Thread::isAlive), "the warm-up set-up thread ended");
        long fdsBefore = openDescriptors();

        URI u = URI.create(l.address());
        FabricDomain.EndpointHandles ours = client.fabricEndpoint(); // a real name the listener accepts
        long start;
        try (Socket s = new Socket(u.getHost(), u.getPort())) {
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            Handshake.client(new SocketHandshakeIo(s, deadline), SecuritySettings.defaults(), Handshake.KIND_FABRIC,
                    Bootstrap.service("tcp", FabricTransport.DEFAULT_EAGER), ours.name());
            start = System.nanoTime();
            assertThat(server.domain().heldCount()).as("the listener opened an endpoint for the client").isEqualTo(1);
            assertThat(l.admission().handshakes()).isEqualTo(1);
            // The hello never comes: the listener must end the connection once the set-up deadline passes.
            s.setSoTimeout((int) TIMEOUT.toMillis());
            assertThat(s.getInputStream().read()).as("the listener closed the connection").isEqualTo(-1);
        } finally {
            client.closeHandles(ours);
        }
        Duration waited = Duration.ofNanos(System.nanoTime() - start);
        assertThat(waited).as("dropped at the deadline, not before it nor long after")
                .isGreaterThan(SET_UP_DEADLINE.minusMillis(300)).isLessThan(SET_UP_DEADLINE.plusSeconds(4));

        awaitTrue(() -> l.admission().connections() == 0 && l.admission().handshakes() == 0, "the ticket is back");
        awaitTrue(() -> server.domain().heldCount() == 0, "the endpoint opened for the client is let go");
        awaitTrue(() -> setUpThreads.stream().noneMatch(Thread::isAlive), "its set-up thread ended");
        awaitTrue(() -> openDescriptors() <= fdsBefore, "every descriptor opened for it is closed");
        assertThat(accepted).as("nothing reached accepted()").isEmpty();
        assertThat(l.isDisposed()).isFalse();

        // and the listener serves the next client
        Endpoint next = client.connect(l.address()).block(TIMEOUT);
        Endpoint nextServer = accepted.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(nextServer).isNotNull();
        StepVerifier.create(nextServer.receive().next().map(FabricListenerReadyDeadlineTest::take)
                        .zipWith(next.send(Messages.make(next.memory(), 2, 64)).thenReturn(1), (s, x) -> s))
                .expectNext(2L).verifyComplete();
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
