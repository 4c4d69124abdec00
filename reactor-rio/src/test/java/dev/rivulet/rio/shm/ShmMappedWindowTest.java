package dev.rivulet.rio.shm;

import dev.rivulet.conformance.Pair;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Windows of shared memory ({@code allocateRegion}) that the peer maps: after the owner checked the key once, puts,
 * gets and atomics are the peer's own copies and hardware atomics, which the test shows by completing them while the
 * owner's only polling thread is blocked. The peer maps exactly the window, read-only for a read grant; a window that
 * is not whole pages, a grant for another connection, or a forged key is never mapped; revoking the grant unmaps it
 * at the peer, and later accesses are refused; closing the region cuts the file to nothing.
 */
@Timeout(60)
class ShmMappedWindowTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final int PAGE = 4096;

    private Transport serverTransport;
    private Transport clientTransport;
    private Pair pair;
    private final Arena arena = Arena.ofShared();

    @BeforeAll
    static void requireShm() {
        ShmTests.requireShm();
    }

    @BeforeEach
    void connect() {
        LeakDetector.enable();
        serverTransport = ShmTests.open(TransportConfig.defaults());
        clientTransport = ShmTests.open(TransportConfig.defaults());
        pair = Pair.connect(serverTransport, clientTransport, ShmTests.address("mapped"));
    }

    @AfterEach
    void close() {
        try {
            pair.close();
            LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
        } finally {
            serverTransport.dispose();
            clientTransport.dispose();
            arena.close();
            LeakDetector.disable();
        }
        assertThat(ShmTests.filesOf(ProcessHandle.current().pid())).isEmpty();
    }

    private Endpoint client() {
        return pair.client();
    }

    private Endpoint server() {
        return pair.server();
    }

    private RemoteMemory hand(Grant g) {
        byte[] handle = g.remote().toBytes();
        return client().receive().asByteArray().next().map(RemoteMemory::fromBytes)
                .zipWith(server().send(handle).thenReturn(1), (r, x) -> r).block(TIMEOUT);
    }

    /** Blocks the server's only polling thread until the returned latch is counted down. */
    private CountDownLatch blockServerLoop() throws InterruptedException {
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        serverTransport.scheduler().schedule(() -> {
            blocked.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(blocked.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        return release;
    }

    /** The lines of /proc/self/maps that map {@code region}'s (unlinked) shared file, the owner's and peers'. */
    private List<String> mappingsOf(MemoryRegion region) throws IOException {
        SharedAllocation a = ((ShmTransport) serverTransport).regions().mappable(region.address(), region.length(),
                java.util.Set.of(Access.REMOTE_READ));
        String file = Files.readSymbolicLink(Path.of("/proc/self/fd/" + a.fd)).toString();
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.endsWith(file)).toList();
    }

    private static boolean mapsWindow(List<String> maps, long fileOffset, long length, String perms) {
        for (String l : maps) {
            String[] f = l.trim().split("\\s+");
            String[] range = f[0].split("-");
            long size = Long.parseUnsignedLong(range[1], 16) - Long.parseUnsignedLong(range[0], 16);
            if (size == length && Long.parseUnsignedLong(f[2], 16) == fileOffset && f[1].equals(perms)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aMappedWindowIsReadWrittenAndUpdatedByThePeerItselfWithTheOwnerIdle() throws Exception {
        // snippet:begin shared-window
        MemoryRegion region = server().memory().allocateRegion(16L * PAGE,   // a shared mapping on shm://
                Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
        Grant grant = server().grant(region.slice(4L * PAGE, 2L * PAGE),    // whole pages: the peer may map them
                Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
        // snippet:end
        RemoteMemory window = hand(grant);
        MemoryRegion local = client().memory().register(arena.allocate(2L * PAGE, PAGE));
        // The first access is served by the owner, and asks to map the window on the way.
        StepVerifier.create(client().get(window, local.slice())).verifyComplete();
        assertThat(mapsWindow(mappingsOf(region), 4L * PAGE, 2L * PAGE, "rw-s"))
                .as("exactly the window's two pages are mapped, shared, read-write").isTrue();

        CountDownLatch release = blockServerLoop();
        try {
            local.segment().fill((byte) 0x5c);
            StepVerifier.create(client().put(local.slice(0, 100), window.slice(10, 100))).expectComplete()
                    .verify(TIMEOUT);
            assertThat(region.segment().get(ValueLayout.JAVA_BYTE, 4L * PAGE + 10)).isEqualTo((byte) 0x5c);
            assertThat(region.segment().get(ValueLayout.JAVA_BYTE, 4L * PAGE + 9)).isZero();
            region.segment().set(ValueLayout.JAVA_LONG, 4L * PAGE + 512, 41);
            StepVerifier.create(client().fetchAdd(window.slice(512, 8), 1)).expectNext(41L).expectComplete()
                    .verify(TIMEOUT);
            StepVerifier.create(client().get(window.slice(512, 8), local.slice(0, 8))).expectComplete()
                    .verify(TIMEOUT);
            assertThat(local.segment().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(42);
            // hardware atomics: the peer's and the owner's own updates interleave without losing one
            List<Long> previous = Flux.range(0, 500).concatMap(i -> client().fetchAdd(window.slice(1024, 8), 1))
                    .collectList().block(TIMEOUT);
            assertThat(new HashSet<>(previous)).hasSize(500);
            StepVerifier.create(client().compareAndSwap32(window.slice(2048, 4), 0, 7)).expectNext(0L)
                    .expectComplete().verify(TIMEOUT);
            assertThat(region.segment().get(ValueLayout.JAVA_INT, 4L * PAGE + 2048)).isEqualTo(7);
        } finally {
            release.countDown();
        }
        assertThat(region.segment().get(ValueLayout.JAVA_LONG, 4L * PAGE + 1024)).isEqualTo(500);
        // Outside the window is outside the mapping: the owner refuses it as it refuses any request.
        RemoteMemory beyond = new RemoteMemory(window.address() + window.length() - 8, 16, window.key(),
                window.providerBytes());
        StepVerifier.create(client().get(beyond, local.slice(0, 16))).expectError(RemoteAccessException.class)
                .verify(TIMEOUT);
        local.close();
        region.close();
    }

    @Test
    void aReadGrantIsMappedReadOnlyAndAWriteThroughItIsRefused() throws Exception {
        MemoryRegion region = server().memory().allocateRegion(4L * PAGE, Access.REMOTE_READ, Access.REMOTE_WRITE);
        region.segment().fill((byte) 3);
        RemoteMemory window = hand(server().grant(region.slice(0, 4L * PAGE), Access.REMOTE_READ));
        MemoryRegion local = client().memory().register(arena.allocate(PAGE, PAGE));
        StepVerifier.create(client().get(window.slice(0, PAGE), local.slice())).verifyComplete();
        assertThat(mapsWindow(mappingsOf(region), 0, 4L * PAGE, "r--s")).as("read-only, shared").isTrue();
        CountDownLatch release = blockServerLoop();
        try {
            StepVerifier.create(client().get(window.slice(PAGE, PAGE), local.slice())).expectComplete()
                    .verify(TIMEOUT);
            assertThat(local.segment().get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 3);
            // a put needs the owner (no write mapping): it waits for the blocked owner, who then refuses it
            Mono<Void> put = client().put(local.slice(), window.slice(0, PAGE));
            StepVerifier.create(put).expectSubscription().expectNoEvent(Duration.ofMillis(200)).then(
                    release::countDown).expectError(RemoteAccessException.class).verify(TIMEOUT);
        } finally {
            release.countDown();
        }
        assertThat(region.segment().get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 3);
        local.close();
        region.close();
    }

    @Test
    void windowsThatAreNotWholePagesOrMemoryFromElsewhereAreServedByTheOwnerNeverMapped() throws Exception {
        MemoryRegion region = server().memory().allocateRegion(4L * PAGE, Access.REMOTE_READ, Access.REMOTE_WRITE);
        MemoryRegion elsewhere = server().memory().register(arena.allocate(4L * PAGE, PAGE), Access.REMOTE_READ);
        RemoteMemory ragged = hand(server().grant(region.slice(100, 2L * PAGE), Access.REMOTE_READ));
        RemoteMemory user = hand(server().grant(elsewhere.slice(), Access.REMOTE_READ));
        assertThat(ragged.providerBytes()).isEmpty();
        assertThat(user.providerBytes()).isEmpty();
        MemoryRegion local = client().memory().register(arena.allocate(PAGE, PAGE));
        StepVerifier.create(client().get(ragged.slice(0, 8), local.slice(0, 8))
                .then(client().get(user.slice(0, 8), local.slice(0, 8)))).verifyComplete();
        assertThat(mappingsOf(region)).as("only the owner's own mapping of the region").hasSize(1);
        CountDownLatch release = blockServerLoop();
        try {
            StepVerifier.create(client().get(ragged.slice(0, 8), local.slice(0, 8))).expectSubscription()
                    .expectNoEvent(Duration.ofMillis(200)).then(release::countDown).expectComplete().verify(TIMEOUT);
        } finally {
            release.countDown();
        }
        local.close();
        elsewhere.close();
        region.close();
    }

    @Test
    void forgedKeysAndGrantsOfOtherConnectionsAreNeitherMappedNorServed() throws Exception {
        MemoryRegion region = server().memory().allocateRegion(4L * PAGE, Access.REMOTE_READ, Access.REMOTE_WRITE);
        region.segment().fill((byte) 1);
        RemoteMemory window = hand(server().grant(region.slice(), Access.REMOTE_READ, Access.REMOTE_WRITE));
        MemoryRegion local = client().memory().register(arena.allocate(PAGE, PAGE));
        local.segment().fill((byte) 9);
        RemoteMemory forged = new RemoteMemory(window.address(), window.length(), window.key() ^ 0x40,
                window.providerBytes());
        StepVerifier.create(client().put(local.slice(), forged.slice(0, PAGE))).expectError(RemoteAccessException.class)
                .verify(TIMEOUT);
        Pair second = Pair.connect(serverTransport, clientTransport, ShmTests.address("mapped-second"));
        try {
            MemoryRegion other = second.client().memory().register(arena.allocate(PAGE, PAGE));
            other.segment().fill((byte) 9);
            StepVerifier.create(second.client().put(other.slice(), window.slice(0, PAGE)))
                    .expectError(RemoteAccessException.class).verify(TIMEOUT);
            other.close();
        } finally {
            second.close();
        }
        assertThat(mappingsOf(region)).as("nothing but the owner's own mapping").hasSize(1);
        for (long i = 0; i < region.length(); i++) {
            assertThat(region.segment().get(ValueLayout.JAVA_BYTE, i)).isEqualTo((byte) 1);
        }
        local.close();
        region.close();
    }

    @Test
    void revokingTheGrantUnmapsTheWindowAtThePeerAndClosingTheRegionCutsTheFile() throws Exception {
        MemoryRegion region = server().memory().allocateRegion(4L * PAGE, Access.REMOTE_READ, Access.REMOTE_WRITE);
        Grant grant = server().grant(region.slice(), Access.REMOTE_READ, Access.REMOTE_WRITE);
        RemoteMemory window = hand(grant);
        MemoryRegion local = client().memory().register(arena.allocate(PAGE, PAGE));
        StepVerifier.create(client().get(window.slice(0, 8), local.slice(0, 8))).verifyComplete();
        assertThat(mappingsOf(region)).as("the owner's mapping and the peer's").hasSize(2);
        assertThat(region.pins()).as("the owner pins what a peer maps").isPositive();

        SharedAllocation a = ((ShmTransport) serverTransport).regions().mappable(region.address(), region.length(),
                java.util.Set.of(Access.REMOTE_READ));
        try (FileChannel file = FileChannel.open(Path.of("/proc/self/fd/" + a.fd), StandardOpenOption.READ)) {
            assertThat(file.size()).isEqualTo(4L * PAGE);
            String name = Files.readSymbolicLink(Path.of("/proc/self/fd/" + a.fd)).toString();
            grant.close();
            // The notice goes out at once; the peer unmaps as it reads it, and its answer releases the pin.
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while ((mappingsOf(region).size() > 1 || region.pins() > 0) && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(mappingsOf(region)).as("the peer unmapped the revoked window").hasSize(1);
            assertThat(region.pins()).isZero();
            StepVerifier.create(client().get(window.slice(0, 8), local.slice(0, 8)))
                    .expectError(RemoteAccessException.class).verify(TIMEOUT);
            region.close();
            StepVerifier.create(region.onClose()).verifyComplete();
            assertThat(file.size()).as("a process still holding the file reaches nothing of it").isZero();
            assertThat(Files.readAllLines(Path.of("/proc/self/maps"))).as("nobody maps it any more")
                    .noneMatch(l -> l.endsWith(name));
        }
        local.close();
    }
}
