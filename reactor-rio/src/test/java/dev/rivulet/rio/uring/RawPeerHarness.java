package dev.rivulet.rio.uring;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.admission.AdmissionControl;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.rio.stream.AcceptingListener;
import dev.rivulet.rio.stream.FrameKind;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What the tests that face an io_uring listener with a {@link RawStreamPeer} share: a listener on loopback whose
 * accepted endpoints queue up in {@link #accepted}, raw peers connected to it (through the handshake or not), and a
 * life cycle that skips the class where io_uring is unavailable, runs every test under the {@link LeakDetector}, and
 * afterwards closes the peers, then disposes every transport opened through {@link #open}, then waits for every
 * buffer to be given back. Also the waits and counts such tests assert with: a condition that must come to hold, a
 * credit grant, a refusal, the process's open descriptors.
 */
abstract class RawPeerHarness {

    protected static final Duration TIMEOUT = Duration.ofSeconds(20);

    protected final List<Transport> transports = new ArrayList<>();
    protected final List<RawStreamPeer> peers = new ArrayList<>();
    protected final BlockingQueue<Endpoint> accepted = new LinkedBlockingQueue<>();
    protected Transport server;
    protected Listener listener;

    @BeforeAll
    static void requireIoUring() {
        Requirements.assume(new UringTransportProvider().availability(), "io_uring");
    }

    @BeforeEach
    final void enableLeakDetection() {
        LeakDetector.enable();
        LeakDetector.reset();
    }

    @AfterEach
    final void closeAndAwaitNoLeaks() throws Exception {
        try {
            for (RawStreamPeer p : peers) {
                p.close();
            }
            transports.forEach(Transport::dispose);
            afterTransportsDisposed();
            LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
        } finally {
            LeakDetector.disable();
        }
    }

    /**
     * Releases what a test class holds beyond its transports, such as the memory behind registered regions: it runs
     * once the transports are disposed, so that nothing of theirs still reads or writes that memory, and before the
     * leak check.
     */
    protected void afterTransportsDisposed() throws Exception {
    }

    /** A transport that is disposed after the test. */
    protected Transport open(TransportConfig config) {
        Transport t = new UringTransportProvider().open(config);
        transports.add(t);
        return t;
    }

    /** Opens {@link #server} with {@code config} and binds {@link #listener} to a free loopback port. */
    protected void listen(TransportConfig config) {
        server = open(config);
        listener = server.bind("uring://127.0.0.1:0").block(TIMEOUT);
        listener.accepted().subscribe(accepted::add);
    }

    /** The listener's admission bounds and counts: connections, handshakes in progress, refusals. */
    protected AdmissionControl admission() {
        return ((AcceptingListener) listener).admission();
    }

    /** A TCP connection to the listener that has said nothing yet; it is closed after the test. */
    protected RawStreamPeer connectRaw(int receiveBuffer) throws IOException {
        RawStreamPeer p = RawStreamPeer.connect(listener.address(), receiveBuffer);
        peers.add(p);
        return p;
    }

    /** As {@link #connectRaw(int)}, from the local address {@code from} (another source on loopback). */
    protected RawStreamPeer connectRaw(int receiveBuffer, java.net.InetAddress from) throws IOException {
        RawStreamPeer p = RawStreamPeer.connect(listener.address(), receiveBuffer, from);
        peers.add(p);
        return p;
    }

    /** {@link #connectRaw(int)} with the system's receive buffer size. */
    protected RawStreamPeer connectRaw() throws IOException {
        return connectRaw(0);
    }

    /**
     * A raw peer through the handshake, and the endpoint the listener made for it; {@link #peer()} is that peer. A
     * small {@code receiveBuffer} (0 for the system's) makes the listener's writes back up sooner.
     */
    protected Endpoint rawPeer(int receiveBuffer) throws Exception {
        RawStreamPeer p = connectRaw(receiveBuffer);
        p.handshake(SecuritySettings.defaults());
        Endpoint ep = accepted.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(ep).as("the listener made an endpoint for the peer").isNotNull();
        return ep;
    }

    /** {@link #rawPeer(int)} with the system's receive buffer size. */
    protected Endpoint rawPeer() throws Exception {
        return rawPeer(0);
    }

    /** The raw peer connected last. */
    protected RawStreamPeer peer() {
        return peers.getLast();
    }

    /** Reads frames until one is a CREDIT grant (the listener's receive() posted receives). */
    protected static void awaitCredit(RawStreamPeer p) throws Exception {
        long end = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < end) {
            RawStreamPeer.Frame f = p.read(Duration.ofSeconds(1));
            if (f != null && f.kind() == FrameKind.MESSAGE && f.controlType() == ControlWord.CREDIT) {
                return;
            }
        }
        throw new AssertionError("no credit granted");
    }

    /** The next significant frame {@link #peer()} reads is the one refusal, for request {@code tag}. */
    protected void expectRefused(long tag) throws Exception {
        RawStreamPeer.Frame f = peer().readSignificant(TIMEOUT);
        assertThat(f).as("answer to request %d", tag).isNotNull();
        assertThat(f.kind()).as("answer to request %d", tag).isEqualTo(FrameKind.RMA_ERR);
        assertThat(f.tag()).isEqualTo(tag);
        assertThat(new String(f.payload(), StandardCharsets.UTF_8)).isEqualTo(MemoryDomain.REFUSED);
    }

    /** A condition a test polls for; it may throw, which fails the wait. */
    protected interface Check {
        boolean holds() throws Exception;
    }

    /** Polls {@code check} until it holds; fails naming {@code what} after {@link #TIMEOUT}. */
    protected static void awaitTrue(String what, Check check) throws Exception {
        long end = System.nanoTime() + TIMEOUT.toNanos();
        while (!check.holds()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(10);
        }
    }

    /** How many descriptors this process has open, to check that failed connections give theirs back. */
    protected static long openDescriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }
}
