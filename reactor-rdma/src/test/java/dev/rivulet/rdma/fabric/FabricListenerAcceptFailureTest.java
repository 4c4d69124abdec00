package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.conformance.Messages;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Buffer;
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
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadFactory;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What a libfabric listener's accept thread does when something other than accept's own I/O error goes wrong: a
 * runtime exception or an error out of accept (a JVM out of memory, a class that cannot be loaded in a process out of
 * descriptors), or a set-up thread that cannot be made or started. The listener, its transport, the sockets and the
 * clients are real; only the listening socket's accept and the set-up thread factory are scripted to fail first.
 * After each failure the listener must serve the next client, and every connection it took must give its admission
 * ticket back.
 */
@Timeout(120)
class FabricListenerAcceptFailureTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    private final List<Transport> transports = new ArrayList<>();
    private final List<FabricListener> listeners = new ArrayList<>();

    @BeforeEach
    void requireLibfabric() {
        Requirements.assume(new FabricTransportProvider().availability(), "libfabric");
    }

    @AfterEach
    void close() {
        listeners.forEach(FabricListener::dispose);
        transports.forEach(Transport::dispose);
    }

    /** A real listening socket whose accepts fail with the scripted failures, in order, before accepting again. */
    private static final class FaultyServerSocket extends ServerSocket {
        private final Queue<Throwable> failures = new ConcurrentLinkedQueue<>();

        FaultyServerSocket() throws IOException {
            bind(new InetSocketAddress("127.0.0.1", 0));
        }

        void failNextAccepts(Throwable... next) {
            failures.addAll(List.of(next));
        }

        boolean failuresLeft() {
            return !failures.isEmpty();
        }

        @Override
        public Socket accept() throws IOException {
            Throwable t = failures.poll();
            if (t == null) {
                return super.accept();
            }
            // The connection is taken from the kernel's queue, then the failure: as when the JVM fails after accept(2).
            Socket taken = super.accept();
            taken.close();
            throw sneaky(t);
        }

        @SuppressWarnings("unchecked")
        private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
            throw (T) t;
        }
    }

    /** Makes real virtual set-up threads, except for the scripted failures, one per admitted connection, in order. */
    private static final class FaultyThreads implements ThreadFactory {
        private final Queue<Supplier<Thread>> failures = new ConcurrentLinkedQueue<>();
        private final ThreadFactory real = Thread.ofVirtual().name("test-fabric-set-up").factory();

        void failNext(Supplier<Thread> failure) {
            failures.add(failure);
        }

        @Override
        public Thread newThread(Runnable r) {
            Supplier<Thread> failure = failures.poll();
            return failure == null ? real.newThread(r) : failure.get();
        }
    }

    /** An unstarted thread whose start fails as a JVM that cannot make another native thread does. */
    private static Thread unstartable() {
        return new Thread(() -> { }) {
            @Override
            public void start() {
                throw new OutOfMemoryError("unable to create native thread: possibly out of memory or process/resource"
                        + " limits reached");
            }
        };
    }

    private FabricTransport open(TransportConfig config) {
        FabricTransport t = (FabricTransport) new FabricTransportProvider()
                .open(config.option("fabric.provider", "tcp"));
        transports.add(t);
        return t;
    }

    private FabricListener listen(FabricTransport server, TransportConfig config, ServerSocket socket,
                                  ThreadFactory threads) {
        FabricListener l = new FabricListener(server, socket,
                new FabricAddress("127.0.0.1", socket.getLocalPort(), "tcp").uri(), config.security(), threads);
        listeners.add(l);
        l.start();
        return l;
    }

    /** A short client-side deadline: a listener that stopped accepting fails the test in seconds, not minutes. */
    private static TransportConfig quickClient() {
        return TransportConfig.defaults().connectTimeout(Duration.ofSeconds(3));
    }

    private static long take(Buffer b) {
        return Messages.seq(b); // lent by receive(): copied out here
    }

    private void servesAClient(FabricListener l, long seq) {
        Endpoint client = open(quickClient()).connect(l.address()).block(TIMEOUT);
        Endpoint server = l.accepted().blockFirst(TIMEOUT);
        StepVerifier.create(server.receive().next().map(FabricListenerAcceptFailureTest::take)
                        .zipWith(client.send(Messages.make(client.memory(), seq, 64)).thenReturn(1), (s, x) -> s))
                .expectNext(seq).verifyComplete();
        client.dispose();
        awaitTrue(() -> l.admission().connections() == 0, "the served client's ticket is returned when it closes");
    }

    @Test
    void runtimeExceptionsAndErrorsFromAcceptAreRetriedAndTheListenerServesOn() throws Exception {
        TransportConfig config = TransportConfig.defaults();
        FaultyServerSocket socket = new FaultyServerSocket();
        socket.failNextAccepts(new IllegalStateException("accept broke"),
                new OutOfMemoryError("Java heap space"),
                new NoClassDefFoundError("sun/nio/ch/SomethingNotYetLoaded (Too many open files)"),
                new SocketException("Too many open files"));
        FabricListener l = listen(open(config), config, socket, Thread.ofVirtual().factory());

        // Each failure swallows a connection: these clients are turned away, whatever they then see.
        for (int i = 0; i < 4; i++) {
            StepVerifier.create(open(quickClient()).connect(l.address())).expectError(TransportException.class)
                    .verify(TIMEOUT);
        }
        assertThat(socket.failuresLeft()).isFalse();
        servesAClient(l, 7);
        assertThat(l.isDisposed()).isFalse();
        assertThat(l.admission().handshakes()).isZero();
    }

    @Test
    void aSetUpThreadThatCannotBeStartedClosesItsConnectionReturnsTheTicketAndTheListenerServesOn() throws Exception {
        TransportConfig config = TransportConfig.defaults();
        FaultyThreads threads = new FaultyThreads();
        threads.failNext(FabricListenerAcceptFailureTest::unstartable);
        threads.failNext(() -> null); // a factory may refuse by answering null
        threads.failNext(() -> {
            throw new OutOfMemoryError("unable to create native thread");
        });
        ServerSocket socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        FabricListener l = listen(open(config), config, socket, threads);

        for (int i = 0; i < 3; i++) {
            StepVerifier.create(open(quickClient()).connect(l.address())).expectError(TransportException.class)
                    .verify(TIMEOUT);
            awaitTrue(() -> l.admission().connections() == 0 && l.admission().handshakes() == 0,
                    "the connection without a set-up thread gave its ticket back");
        }
        servesAClient(l, 8);
        assertThat(l.isDisposed()).isFalse();
    }

    @Test
    void aBrokenJvmEndsTheListenerVisiblyInsteadOfLeavingItsPortOpen() throws Exception {
        TransportConfig config = TransportConfig.defaults();
        FaultyServerSocket socket = new FaultyServerSocket();
        socket.failNextAccepts(new StackOverflowError("scripted"));
        FabricListener l = listen(open(config), config, socket, Thread.ofVirtual().factory());
        StepVerifier.create(open(quickClient()).connect(l.address())).expectError(TransportException.class)
                .verify(TIMEOUT);
        StepVerifier.create(l.onDispose()).expectComplete().verify(TIMEOUT);
        assertThat(socket.isClosed()).as("the port is given up, so clients are refused, not left waiting").isTrue();
        StepVerifier.create(l.accepted()).expectComplete().verify(TIMEOUT);
    }

    private static void awaitTrue(Supplier<Boolean> condition, String what) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.get()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }
}
