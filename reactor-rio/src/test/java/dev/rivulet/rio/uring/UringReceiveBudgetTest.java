package dev.rivulet.rio.uring;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.memory.BufferPool;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.rio.stream.AcceptingListener;
import dev.rivulet.rio.stream.FrameKind;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.test.StepVerifier;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static dev.rivulet.rio.uring.RawStreamPeer.header;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a peer can make an io_uring listener commit ahead of the bytes it sends ({@code security.unauthenticatedMemory},
 * {@code security.listenerMemory}), and what happens to a peer that trickles a frame to hold memory
 * ({@code security.minReceiveRate}), written frame by frame with a {@link RawStreamPeer}.
 */
@Timeout(120)
class UringReceiveBudgetTest extends RawPeerHarness {

    private static final int MIB = 1 << 20;
    private static final long DATA = ControlWord.encode(ControlWord.DATA, 0);
    private static final SecuritySettings SECRET = SecuritySettings.defaults()
            .secret("a secret both sides were given".getBytes(StandardCharsets.UTF_8));

    private final List<Disposable> receivers = new ArrayList<>();

    /** A raw peer through the handshake with {@code settings}, its endpoint receiving (so credit is granted). */
    private Endpoint receivingPeer(SecuritySettings settings, AtomicReference<byte[]> got) throws Exception {
        RawStreamPeer p = connectRaw(0);
        p.handshake(settings);
        Endpoint ep = accepted.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(ep).isNotNull();
        receivers.add(ep.receive().asByteArray().subscribe(got::set, e -> { }));
        awaitCredit(p);
        return ep;
    }

    private long outstanding() {
        return server.memory().buffers().outstanding();
    }

    private long registered() {
        return server.memory().buffers().registeredBytes();
    }

    private long committed() {
        return ((AcceptingListener) listener).budget().committed();
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Override
    protected void afterTransportsDisposed() {
        receivers.forEach(Disposable::dispose);
    }

    @Test
    void headersAnnouncingTheLargestMessageCommitNoMoreThanAFirstPieceOnUnauthenticatedConnections()
            throws Exception {
        listen(TransportConfig.defaults());
        BufferPool pool = server.memory().buffers();
        receivingPeer(SecuritySettings.defaults(), new AtomicReference<>()); // warm-up: the first slab of each kind
        peer().write(RawStreamPeer.frame(FrameKind.MESSAGE, DATA, new byte[100]));
        long outstandingBefore = outstanding();
        long registeredBefore = registered();
        // What one connection's own buffers hold of the listener's memory from its admission (peers here cannot
        // authenticate): the only thing the budget may show for them.
        long perConnection = committed();
        int connections = 50;
        List<AtomicReference<byte[]>> got = new ArrayList<>();
        for (int i = 0; i < connections; i++) {
            got.add(new AtomicReference<>());
            receivingPeer(SecuritySettings.defaults(), got.getLast());
            // 16 bytes that announce 16 MiB, and a first 1000 of them
            peer().write(RawStreamPeer.concat(header(FrameKind.MESSAGE, DATA, 16 * MIB), random(1000, i)));
        }
        awaitTrue("every header parsed", () -> outstanding() - outstandingBefore >= connections);
        long held = registered() - registeredBefore;
        assertThat(held).as("memory registered for %d announced 16 MiB messages", connections)
                .isLessThanOrEqualTo((long) connections * (128 << 10));
        assertThat(committed()).as("nothing committed ahead for unauthenticated peers, beyond their buffers")
                .isEqualTo((connections + 1) * perConnection);

        // The peer that sends what it announced gets its message, every byte of it.
        byte[] message = random(16 * MIB, 42);
        RawStreamPeer last = peer();
        last.write(Arrays.copyOfRange(message, 1000, message.length)); // completes a message whose first bytes...
        AtomicReference<byte[]> lastGot = got.getLast();
        awaitTrue("the message to arrive", () -> lastGot.get() != null);
        byte[] expected = random(1000, connections - 1);
        assertThat(Arrays.copyOf(lastGot.get(), 1000)).isEqualTo(expected);
        assertThat(Arrays.copyOfRange(lastGot.get(), 1000, message.length))
                .isEqualTo(Arrays.copyOfRange(message, 1000, message.length));
        assertThat(pool.outstanding()).isGreaterThanOrEqualTo(outstandingBefore);
    }

    @Test
    void anAuthenticatedPeerCommitsAMessageInFullWithinTheListenersTotal() throws Exception {
        listen(TransportConfig.defaults().security(SECRET.listenerMemory(20L * MIB)));
        AtomicReference<byte[]> first = new AtomicReference<>();
        AtomicReference<byte[]> second = new AtomicReference<>();
        receivingPeer(SECRET, first);
        RawStreamPeer a = peer();
        receivingPeer(SECRET, second);
        RawStreamPeer b = peer();
        a.write(header(FrameKind.MESSAGE, DATA, 16 * MIB));
        awaitTrue("the first header to be committed in full", () -> committed() == 16 * MIB);
        b.write(header(FrameKind.MESSAGE, DATA, 16 * MIB));
        awaitTrue("the second header parsed", () -> outstanding() >= 2);
        assertThat(committed()).as("32 MiB would exceed the listener's 20 MiB: the second grows as it arrives")
                .isEqualTo(16 * MIB);
        byte[] ma = random(16 * MIB, 1);
        byte[] mb = random(16 * MIB, 2);
        b.write(mb);
        a.write(ma);
        awaitTrue("both messages to arrive", () -> first.get() != null && second.get() != null);
        assertThat(first.get()).isEqualTo(ma);
        assertThat(second.get()).isEqualTo(mb);
        assertThat(committed()).isZero();
    }

    @Test
    void aPeerThatTricklesAFrameLosesTheConnectionAndTheMemoryComesBack() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        listen(TransportConfig.defaults().meterRegistry(registry).liveness(new LivenessSettings(
                Duration.ofMillis(300), Duration.ofSeconds(20), Duration.ofSeconds(20))));
        long before = outstanding();
        Endpoint ep = receivingPeer(SecuritySettings.defaults(), new AtomicReference<>());
        StepVerifier cut = StepVerifier.create(ep.closeReason())
                .assertNext(r -> assertThat(r.cause()).isInstanceOf(ConnectionLostException.class)
                        .hasMessageContaining("security.minReceiveRate"))
                .expectComplete().verifyLater();
        peer().write(RawStreamPeer.concat(header(FrameKind.MESSAGE, DATA, MIB), new byte[1000]));
        long start = System.nanoTime();
        // One byte every 50 ms: alive by liveness's measure (something arrives), far below 64 KiB/s.
        while (!ep.isDisposed() && System.nanoTime() - start < TIMEOUT.toNanos()) {
            try {
                peer().write(new byte[1]);
            } catch (java.io.IOException reset) {
                break;
            }
            Thread.sleep(50);
        }
        cut.verify(TIMEOUT);
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(tookMillis).as("cut within three heartbeat windows and a few checks").isLessThan(5_000);
        awaitTrue("the partial message's memory to come back", () -> outstanding() <= before);
        assertThat(registry.get("rivulet.frames.slow").functionCounter().count()).isEqualTo(1.0);
    }

    @Test
    void aPeerStoppedInTheMiddleOfAFrameIsLeftToThePeerTimeout() throws Exception {
        listen(TransportConfig.defaults().liveness(new LivenessSettings(Duration.ofMillis(300),
                Duration.ofMillis(2500), Duration.ofSeconds(20))));
        Endpoint ep = receivingPeer(SecuritySettings.defaults(), new AtomicReference<>());
        long start = System.nanoTime();
        peer().write(RawStreamPeer.concat(header(FrameKind.MESSAGE, DATA, MIB), new byte[1000]));
        StepVerifier.create(ep.closeReason())
                .assertNext(r -> assertThat(r.cause()).isInstanceOf(ConnectionLostException.class)
                        .hasMessageContaining("no sign of life"))
                .expectComplete().verify(TIMEOUT);
        assertThat((System.nanoTime() - start) / 1_000_000).as("not before the peer timeout")
                .isGreaterThanOrEqualTo(2_400);
    }
}
