package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.Messages;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.LeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/** Two JVM processes over each loopback provider: an echo round trip, then the peer killed mid-stream. */
@Timeout(90)
class FabricCrossProcessTest {

    private Process peer;
    private Transport transport;

    private void startPeer(String provider) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("--sun-misc-unsafe-memory-access=allow");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(FabricEchoPeer.class.getName());
        cmd.add(provider);
        peer = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        transport = new FabricTransportProvider().open(TransportConfig.defaults().option("provider", provider));
        LeakDetector.enable();
        LeakDetector.reset();
    }

    private String peerAddress() throws Exception {
        BufferedReader r = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        String line;
        while ((line = r.readLine()) != null && System.nanoTime() < deadline) {
            if (line.startsWith("ADDRESS ")) {
                Thread.ofVirtual().start(() -> r.lines().forEach(l -> { })); // keep draining its output
                return line.substring("ADDRESS ".length()).trim();
            }
        }
        throw new AssertionError("peer process did not report its address");
    }

    @AfterEach
    void stop() {
        if (peer != null) {
            peer.destroyForcibly();
        }
        if (transport != null) {
            transport.dispose();
        }
        LeakDetector.disable();
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "sockets", "shm"})
    void messagesRoundTripThroughAnotherProcessByteForByte(String provider) throws Exception {
        startPeer(provider);
        Endpoint ep = transport.connect(peerAddress()).block(Duration.ofSeconds(30));
        int n = 20_000;
        int size = 200;
        AtomicLong next = new AtomicLong();
        StepVerifier.create(ep.receive().take(n).map(b -> {
                            try {
                                long expected = next.getAndIncrement();
                                assertThat(Messages.verify(b.segment(), expected, size)).as("echo %d", expected)
                                        .isTrue();
                                return expected;
                            } finally {
                                b.release();
                            }
                        }).count()
                        .zipWith(ep.send(Flux.range(0, n).map(i -> Messages.make(ep.memory(), i, size)))
                                .thenReturn(1), (c, x) -> c))
                .expectNext((long) n)
                .verifyComplete();
        ep.dispose();
        StepVerifier.create(ep.onClose()).verifyComplete();
        LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tcp", "sockets", "shm"})
    void peerKilledMidStreamEndsEveryPendingSignalWithConnectionLost(String provider) throws Exception {
        startPeer(provider);
        Endpoint ep = transport.connect(peerAddress()).block(Duration.ofSeconds(30));
        AtomicLong echoed = new AtomicLong();
        StepVerifier.create(ep.receive().doOnNext(b -> {
                            b.release();
                            if (echoed.incrementAndGet() == 2_000) {
                                peer.destroyForcibly(); // SIGKILL: no goodbye, no close
                            }
                        }).then())
                .then(() -> ep.send(Flux.<Buffer, Long>generate(() -> 0L, (s, sink) -> {
                    sink.next(Messages.make(ep.memory(), s, 64));
                    return s + 1;
                })).subscribe(null, e -> { }))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(ConnectionLostException.class)
                        .hasMessageContaining("vanished"))
                .verify(Duration.ofSeconds(60));
        StepVerifier.create(ep.flush()).expectError(ConnectionLostException.class).verify(Duration.ofSeconds(10));
        StepVerifier.create(ep.onClose()).verifyComplete();
        LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
    }
}
