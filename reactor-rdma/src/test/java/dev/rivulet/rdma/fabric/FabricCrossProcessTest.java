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
        startPeer(provider, "echo");
    }

    private void startPeer(String provider, String mode) throws Exception {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        cmd.add("--enable-native-access=ALL-UNNAMED");
        cmd.add("--sun-misc-unsafe-memory-access=allow");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(FabricEchoPeer.class.getName());
        cmd.add(provider);
        cmd.add(mode);
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
    void putGetAndAtomicsOnAnotherProcessMemory(String provider) throws Exception {
        startPeer(provider, "rma");
        Endpoint ep = transport.connect(peerAddress()).block(Duration.ofSeconds(30));
        dev.rivulet.core.memory.RemoteMemory remote = ep.receive().next().map(b -> {
            try {
                return dev.rivulet.core.memory.RemoteMemory.fromBytes(b.toArray());
            } finally {
                b.release();
            }
        }).block(Duration.ofSeconds(20));
        int size = 64 << 10;
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
            dev.rivulet.core.memory.MemoryRegion local = transport.memory().register(arena.allocate(size, 4096));
            StepVerifier.create(ep.get(remote, local.slice())).verifyComplete();
            for (int i = 0; i < size; i++) {
                assertThat(local.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, i)).isEqualTo((byte) (i * 13 + 1));
            }
            local.segment().fill((byte) 0x42);
            StepVerifier.create(ep.put(local.slice(0, 4096), remote.slice(8192, 4096)).then(ep.flush()))
                    .verifyComplete();
            StepVerifier.create(ep.get(remote, local.slice())).verifyComplete();
            for (int i = 0; i < size; i++) {
                byte expected = i >= 8192 && i < 12288 ? (byte) 0x42 : (byte) (i * 13 + 1);
                assertThat(local.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, i)).as("byte %d", i)
                        .isEqualTo(expected);
            }
            if (ep.capabilities().supports(dev.rivulet.core.Operation.ATOMIC_FETCH_ADD_64)) {
                dev.rivulet.core.memory.RemoteMemory word = remote.slice(0, 8);
                StepVerifier.create(ep.swap(word, 0)).expectNextCount(1).verifyComplete();
                StepVerifier.create(Flux.range(0, 200).flatMap(i -> ep.fetchAdd(word, 1), 16).collectList()
                                .map(java.util.HashSet::new).map(java.util.Set::size))
                        .expectNext(200).verifyComplete();
                StepVerifier.create(ep.compareAndSwap(word, 200, 7)).expectNext(200L).verifyComplete();
            }
            if (ep.capabilities().remoteAccessChecked()) {
                dev.rivulet.core.memory.RemoteMemory forged = new dev.rivulet.core.memory.RemoteMemory(
                        remote.address(), remote.length(), remote.key() ^ 0x77, remote.providerBytes());
                StepVerifier.create(ep.get(forged, local.slice(0, 64)))
                        .expectError(dev.rivulet.core.error.RemoteAccessException.class).verify(Duration.ofSeconds(20));
            }
            ep.dispose();
            StepVerifier.create(ep.onClose()).verifyComplete();
            local.close();
        }
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
