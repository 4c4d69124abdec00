package dev.rivulet.conformance;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Operation;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.spi.TransportProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The part of the conformance kit that needs two JVM processes: this JVM connects to an {@link EchoPeer} in a child
 * JVM and checks messaging byte for byte, one-sided operations on the other process's memory (including a forged
 * key), and a peer killed with SIGKILL mid-stream. A transport runs it by extending this class; a subclass per
 * provider variant, as with {@link TransportConformanceKit}.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class CrossProcessKit {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private Process peer;
    private Transport transport;

    /** The provider both processes open (the peer instantiates it by class name). */
    protected abstract TransportProvider provider();

    /** Options for both processes' transports (the peer gets them as {@code key=value} arguments). */
    protected Map<String, String> options() {
        return Map.of();
    }

    /** The address the peer binds, port 0 where the transport picks one. */
    protected abstract String peerBindAddress();

    @BeforeEach
    void openTransport() {
        TransportConfig config = TransportConfig.defaults();
        for (Map.Entry<String, String> o : options().entrySet()) {
            config = config.option(o.getKey(), o.getValue());
        }
        transport = provider().open(config);
        LeakDetector.enable();
        LeakDetector.reset();
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

    /** Starts the peer process and returns the address it listens on. */
    private String startPeer(String mode) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), EchoPeer.class.getName(),
                provider().getClass().getName(), peerBindAddress(), mode));
        options().forEach((k, v) -> cmd.add(k + "=" + v));
        peer = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> address = CompletableFuture.supplyAsync(() -> {
            try {
                String line;
                while ((line = out.readLine()) != null) {
                    if (line.startsWith("ADDRESS ")) {
                        return line.substring("ADDRESS ".length()).trim();
                    }
                    System.out.println("[peer] " + line);
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            throw new IllegalStateException("peer exited before listening");
        });
        String a = address.get(60, TimeUnit.SECONDS);
        // keep draining its output so it never blocks on a full pipe
        Thread.ofPlatform().daemon(true).start(() -> out.lines().forEach(l -> { }));
        return a;
    }

    private String peerAddress;

    private Endpoint connectToPeer(String mode) throws Exception {
        peerAddress = startPeer(mode);
        return transport.connect(peerAddress).block(TIMEOUT);
    }

    /** The window the peer (in mode {@code rma}) grants each new endpoint, sent as the endpoint's first message. */
    private static RemoteMemory handleFrom(Endpoint ep) {
        return ep.receive().asByteArray().next().map(RemoteMemory::fromBytes).block(TIMEOUT);
    }

    @Test
    void messagesRoundTripThroughAnotherProcessByteForByte() throws Exception {
        Endpoint ep = connectToPeer("echo");
        for (int size : new int[]{64, 100_000}) {
            long n = size == 64 ? 20_000 : 200;
            AtomicLong next = new AtomicLong();
            Mono<Long> echoed = ep.receive().take(n).map(b -> {
                long expected = next.getAndIncrement();
                assertThat(Messages.verify(b.segment(), expected, size)).as("echo %d of %d B", expected, size)
                        .isTrue();
                return expected;
            }).count();
            Mono<Void> sent = ep.send(Flux.range(0, (int) n).map(i -> Messages.make(ep.memory(), i, size)));
            StepVerifier.create(echoed.zipWith(sent.thenReturn(1), (c, x) -> c)).expectNext(n).verifyComplete();
        }
        ep.dispose();
        StepVerifier.create(ep.onClose()).expectComplete().verify(TIMEOUT);
        LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
    }

    @Test
    void putGetAndAtomicsOnAnotherProcessMemory() throws Exception {
        Endpoint ep = connectToPeer("rma");
        RemoteMemory remote = handleFrom(ep);
        int size = EchoPeer.RMA_WINDOW;
        assertThat(remote.length()).isEqualTo(size);
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion local = transport.memory().register(arena.allocate(size, 4096));
            StepVerifier.create(ep.get(remote, local.slice())).expectComplete().verify(TIMEOUT);
            for (int i = 0; i < size; i++) {
                assertThat(local.segment().get(ValueLayout.JAVA_BYTE, i)).as("byte %d", i)
                        .isEqualTo(EchoPeer.rmaByte(i));
            }
            local.segment().fill((byte) 0x42);
            StepVerifier.create(ep.put(local.slice(0, 4096), remote.slice(8192, 4096)).then(ep.flush()))
                    .expectComplete().verify(TIMEOUT);
            StepVerifier.create(ep.get(remote, local.slice())).expectComplete().verify(TIMEOUT);
            for (int i = 0; i < size; i++) {
                byte expected = i >= 8192 && i < 12288 ? (byte) 0x42 : EchoPeer.rmaByte(i);
                assertThat(local.segment().get(ValueLayout.JAVA_BYTE, i)).as("byte %d", i).isEqualTo(expected);
            }
            if (ep.capabilities().supports(Operation.ATOMIC_FETCH_ADD_64)) {
                RemoteMemory word = remote.slice(0, 8);
                Endpoint atomics = ep;
                StepVerifier.create(ep.swap(word, 0)).expectNextCount(1).expectComplete().verify(TIMEOUT);
                StepVerifier.create(Flux.range(0, 200).flatMap(i -> atomics.fetchAdd(word, 1), 16).collectList()
                                .map(HashSet::new).map(HashSet::size))
                        .expectNext(200).expectComplete().verify(TIMEOUT);
                StepVerifier.create(ep.compareAndSwap(word, 200, 7)).expectNext(200L).expectComplete().verify(TIMEOUT);
            }
            if (ep.capabilities().remoteAccessChecked()) {
                RemoteMemory forged = new RemoteMemory(remote.address(), remote.length(), remote.key() ^ 0x77,
                        remote.providerBytes());
                StepVerifier.create(ep.get(forged, local.slice(0, 64))).expectError(RemoteAccessException.class)
                        .verify(TIMEOUT);
                if (ep.capabilities().refusalClosesConnection()) {
                    StepVerifier.create(ep.onClose()).expectComplete().verify(TIMEOUT);
                    ep = transport.connect(peerAddress).block(TIMEOUT);
                    remote = handleFrom(ep);
                }
                RemoteMemory beyond = new RemoteMemory(remote.address() + size - 32, 64, remote.key(),
                        remote.providerBytes());
                StepVerifier.create(ep.get(beyond, local.slice(0, 64))).expectError(RemoteAccessException.class)
                        .verify(TIMEOUT);
            }
            ep.dispose();
            StepVerifier.create(ep.onClose()).expectComplete().verify(TIMEOUT);
            local.close();
        }
        LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
    }

    @Test
    void peerKilledMidStreamEndsEveryPendingSignalWithConnectionLost() throws Exception {
        Endpoint ep = connectToPeer("echo");
        AtomicLong echoed = new AtomicLong();
        CompletableFuture<Throwable> receiveEnd = new CompletableFuture<>();
        ep.receive().subscribe(b -> {
            if (echoed.incrementAndGet() == 2_000) {
                peer.destroyForcibly(); // SIGKILL: no goodbye, no close frame
            }
        }, receiveEnd::complete, () -> receiveEnd.complete(null));
        Mono<Void> endless = ep.send(Flux.<Buffer, Long>generate(() -> 0L, (s, sink) -> {
            sink.next(Messages.make(ep.memory(), s, 64));
            return s + 1;
        }));
        StepVerifier.create(endless).expectError(ConnectionLostException.class).verify(Duration.ofSeconds(60));
        assertThat(receiveEnd.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(ConnectionLostException.class);
        StepVerifier.create(ep.flush()).expectError(ConnectionLostException.class).verify(TIMEOUT);
        StepVerifier.create(ep.onClose()).expectComplete().verify(TIMEOUT);
        assertThat(peer.waitFor(10, TimeUnit.SECONDS)).isTrue();
        LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
        long killed = peer.pid();
        transport.dispose();
        try (var files = java.nio.file.Files.list(java.nio.file.Path.of("/dev/shm"))) {
            assertThat(files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith(killed + ":")))
                    .as("shared-memory files of the killed peer left in /dev/shm").isEmpty();
        } catch (java.nio.file.NoSuchFileException noShm) {
            // no /dev/shm on this system: nothing can be left there
        }
    }
}
