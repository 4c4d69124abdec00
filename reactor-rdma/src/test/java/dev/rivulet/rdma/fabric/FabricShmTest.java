package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.Messages;
import dev.rivulet.conformance.Pair;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Buffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * shm with both ends in this JVM: libfabric 1.17 borrows a same-process peer's mapping, so an endpoint is closed in
 * libfabric only once its peer let go of it ({@link SameProcessShm}). Closing in either order, and connecting again
 * on the same transports afterwards (enabling an endpoint walks every peer in the AV), must neither crash nor keep
 * anything open once both sides are done.
 */
@Timeout(60)
class FabricShmTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private final List<Transport> transports = new ArrayList<>();

    @AfterEach
    void dispose() {
        transports.forEach(Transport::dispose);
    }

    private Transport open() {
        Transport t = new FabricTransportProvider().open(TransportConfig.defaults().option("fabric.provider", "shm"));
        transports.add(t);
        return t;
    }

    @Test
    void closingEitherSideMidStreamThenConnectingAgainOnTheSameTransports() throws IOException {
        Transport server = open();
        Transport client = open();
        int before = SameProcessShm.PROCESS.open();
        for (int round = 0; round < 6; round++) {
            Pair p = Pair.connect(server, client, "fabric://127.0.0.1:0?provider=shm");
            assertThat(SameProcessShm.PROCESS.open()).isEqualTo(before + 2);
            exchange(p.client(), p.server(), round);
            exchange(p.server(), p.client(), round);
            Endpoint first = round % 2 == 0 ? p.client() : p.server();
            Endpoint second = first == p.client() ? p.server() : p.client();
            // the other side keeps sending into the closing one: its sends go through the closing one's region
            Mono<Void> endless = second.send(Flux.<Buffer, Long>generate(() -> 0L, (seq, sink) -> {
                sink.next(Messages.make(second.memory(), seq, 64));
                return seq + 1;
            }));
            Disposable rx = first.receive().take(200).doOnComplete(first::dispose)
                    .subscribe();
            StepVerifier.create(endless).expectError(TransportException.class).verify(TIMEOUT);
            StepVerifier.create(first.onClose()).verifyComplete();
            StepVerifier.create(second.onClose()).verifyComplete(); // the close word reached it
            rx.dispose();
            p.listener().dispose();
            awaitOpen(before);
        }
        assertThat(regionFilesOfThisProcess()).as("shm regions still in /dev/shm").isEqualTo(before);
    }

    @Test
    void disposingATransportWhosePeerStillRunsClosesEverythingOnceThePeerIsDone() throws IOException {
        Transport server = open();
        Transport client = open();
        int before = SameProcessShm.PROCESS.open();
        Pair p = Pair.connect(server, client, "fabric://127.0.0.1:0?provider=shm");
        exchange(p.client(), p.server(), 1);
        client.dispose(); // its fabric and AV stay until its endpoint is closed in libfabric
        StepVerifier.create(p.server().onClose()).verifyComplete();
        awaitOpen(before);
        // the server transport still works: a new endpoint enabled on its AV finds no stale peer
        Transport other = open();
        Pair q = Pair.connect(server, other, "fabric://127.0.0.1:0?provider=shm");
        exchange(q.client(), q.server(), 2);
        q.close();
        q.listener().dispose();
        p.listener().dispose();
        awaitOpen(before);
        assertThat(regionFilesOfThisProcess()).isEqualTo(before);
    }

    @Test
    void attachingToAnEndpointOfThisProcessIsRefused() {
        FabricTransport t = (FabricTransport) open();
        byte[] own = ("fi_shm://" + ProcessHandle.current().pid() + ":0:12345\0").getBytes(StandardCharsets.US_ASCII);
        StepVerifier.create(t.attach(own)).expectError(InvalidRequestException.class).verify(TIMEOUT);
    }

    // ------------------------------------------------------------------------------------------ the rule itself

    private static byte[] name(String n) {
        return (n + "\0").getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void aRetiredEndpointWaitsForThePeerThatNamesItThenBothClose() {
        SameProcessShm shm = new SameProcessShm("fi_shm://1:");
        AtomicInteger closed = new AtomicInteger();
        shm.opened(name("fi_shm://1:0:0"));
        shm.opened(name("fi_shm://1:0:1"));
        shm.peerKnown(name("fi_shm://1:0:0"), name("fi_shm://1:0:1"));
        shm.peerKnown(name("fi_shm://1:0:1"), name("fi_shm://1:0:0"));
        shm.retire(name("fi_shm://1:0:0"), closed::incrementAndGet);
        assertThat(closed).as("its peer still names it").hasValue(0);
        assertThat(shm.open()).isEqualTo(2);
        shm.retire(name("fi_shm://1:0:1"), closed::incrementAndGet);
        assertThat(closed).hasValue(2);
        assertThat(shm.open()).isZero();
        assertThat(shm.closedHere(name("fi_shm://1:0:0"))).isTrue();
    }

    @Test
    void anEndpointWhosePeerIsInAnotherProcessClosesAtOnce() {
        SameProcessShm shm = new SameProcessShm("fi_shm://1:");
        AtomicInteger closed = new AtomicInteger();
        shm.opened(name("fi_shm://1:0:0"));
        shm.peerKnown(name("fi_shm://1:0:0"), name("fi_shm://2:0:0"));
        shm.retire(name("fi_shm://1:0:0"), closed::incrementAndGet);
        assertThat(closed).hasValue(1);
        assertThat(shm.closedHere(name("fi_shm://2:0:0"))).as("not ours").isFalse();
    }

    @Test
    void aClosedEndpointOfThisProcessIsNeverInsertedAgain() {
        SameProcessShm shm = new SameProcessShm("fi_shm://1:");
        shm.opened(name("fi_shm://1:0:0"));
        shm.opened(name("fi_shm://1:0:1"));
        shm.retire(name("fi_shm://1:0:0"), () -> { });
        assertThatThrownBy(() -> shm.peerKnown(name("fi_shm://1:0:1"), name("fi_shm://1:0:0")))
                .isInstanceOf(ConnectionRefusedException.class);
        AtomicInteger closed = new AtomicInteger();
        shm.retire(name("fi_shm://1:0:1"), closed::incrementAndGet);
        assertThat(closed).as("the refused peer was not counted").hasValue(1);
    }

    // ------------------------------------------------------------------------------------------ helpers

    @Test
    void regionsLeftByDeadProcessesAreRemovedWhenShmOpens() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        assertThat(gone.waitFor()).isZero();
        long uid = ((Number) Files.getAttribute(Path.of("/proc/self"), "unix:uid")).longValue();
        Path leftover = Path.of("/dev/shm", gone.pid() + ":" + uid + ":0");
        Path alive = Path.of("/dev/shm", ProcessHandle.current().pid() + ":" + uid + ":999");
        Files.write(leftover, new byte[64]);
        Files.write(alive, new byte[64]);
        try {
            open();
            assertThat(leftover).as("a dead process's region").doesNotExist();
            assertThat(alive).as("a live process's region").exists();
        } finally {
            Files.deleteIfExists(leftover);
            Files.deleteIfExists(alive);
        }
    }

    private static void exchange(Endpoint from, Endpoint to, long seq) {
        StepVerifier.create(to.receive().next().map(b -> Messages.verify(b.segment(), seq, 100))
                        .zipWith(from.send(Messages.make(from.memory(), seq, 100)).thenReturn(true), (ok, sent) -> ok))
                .expectNext(true).verifyComplete();
    }

    private static void awaitOpen(int expected) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (SameProcessShm.PROCESS.open() != expected) {
            assertThat(System.nanoTime()).as("endpoints still open in libfabric: %d, expected %d",
                    SameProcessShm.PROCESS.open(), expected).isLessThan(deadline);
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** Regions libfabric's shm keeps in /dev/shm for this process ({@code <pid>:<uid>:<index>}, unlinked at close). */
    private static long regionFilesOfThisProcess() throws IOException {
        String prefix = ProcessHandle.current().pid() + ":";
        try (Stream<Path> files = Files.list(Path.of("/dev/shm"))) {
            return files.filter(f -> f.getFileName().toString().startsWith(prefix)).count();
        }
    }
}
