package dev.rivulet.conformance;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.SessionExpiredException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.resume.ResumableSession;
import dev.rivulet.core.resume.ResumeSpec;
import dev.rivulet.core.resume.SessionMemory;
import dev.rivulet.core.resume.SessionWindow;
import dev.rivulet.testing.NoLeaks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Signal;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.zip.CRC32C;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Resumable sessions over a transport: what the application sends arrives exactly once and in order across
 * connections broken from either side, puts, gets and atomics on a window the peer exposed are applied exactly once
 * across them too and refused typed outside it, a session that cannot be resumed ends typed with everything pending,
 * and a session closed while it is being resumed leaves nothing behind. A transport's test names its bind address.
 */
@Timeout(120)
@ExtendWith(NoLeaks.class)
public abstract class ResumeConformance {

    private static final Duration TIMEOUT = Duration.ofSeconds(25);
    private static final int MESSAGES = 10_000;
    private static final int FETCH_ADDS = 100_000;
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();

    private final List<Endpoint> serverConnections = new CopyOnWriteArrayList<>();
    private final List<Endpoint> clientConnections = new CopyOnWriteArrayList<>();
    private final List<RivuletServer.BoundServer> servers = new ArrayList<>();
    /** Memory the server sides expose; closed after the servers. */
    private final Arena arena = Arena.ofShared();

    /** An address to bind a server at, e.g. {@code local://name} or {@code uring://127.0.0.1:0}. */
    protected abstract String bindAddress(String name);

    @AfterEach
    void closeEverything() {
        servers.forEach(s -> s.disposeNow(TIMEOUT));
        serverConnections.forEach(Endpoint::dispose);
        clientConnections.forEach(Endpoint::dispose);
        arena.close();
    }

    private RivuletServer.BoundServer serve(String address, ResumeSpec spec,
                                            Function<ResumableSession, Mono<Void>> handler) {
        RivuletServer.BoundServer server = RivuletServer.create()
                .bindAddress(address)
                .doOnConnection(serverConnections::add)
                .handleResumable(spec, handler)
                .bindNow();
        servers.add(server);
        return server;
    }

    private RivuletClient client(String address) {
        return RivuletClient.create().remoteAddress(address).doOnConnected(clientConnections::add);
    }

    /** Message {@code i}: its number, then a length and bytes that depend on it, so a torn or swapped one shows. */
    static byte[] message(int i) {
        byte[] m = new byte[4 + (i * 7919) % 3000];
        m[0] = (byte) (i >>> 24);
        m[1] = (byte) (i >>> 16);
        m[2] = (byte) (i >>> 8);
        m[3] = (byte) i;
        for (int j = 4; j < m.length; j++) {
            m[j] = (byte) (i * 31 + j);
        }
        return m;
    }

    private static void assertEveryMessageOnceInOrder(List<byte[]> received) {
        assertThat(received).hasSize(MESSAGES);
        for (int i = 0; i < MESSAGES; i++) {
            assertThat(received.get(i)).as("message %d", i).isEqualTo(message(i));
        }
    }

    private static void breakLater(Endpoint connection) {
        Schedulers.boundedElastic().schedule(connection::dispose);
    }

    @Test
    void everyMessageArrivesOnceAndInOrderInBothDirectionsAcrossConnectionsBrokenFromEitherSide() {
        List<byte[]> atServer = new CopyOnWriteArrayList<>();
        AtomicInteger count = new AtomicInteger();
        RivuletServer.BoundServer server = serve(bindAddress("resume-both-ways"), ResumeSpec.defaults().window(64),
                session -> session.send(Flux.range(0, MESSAGES).map(ResumeConformance::message))
                        .and(session.receive()
                                .doOnNext(m -> {
                                    atServer.add(m);
                                    int n = count.incrementAndGet();
                                    if (n == MESSAGES / 3) { // mid-stream, from the server's side
                                        breakLater(serverConnections.getLast());
                                    } else if (n == 2 * MESSAGES / 3) { // and from the client's
                                        breakLater(clientConnections.getLast());
                                    }
                                })
                                .take(MESSAGES)
                                .then())
                        .then(Mono.never()));
        ResumableSession session = client(server.address())
                .connectResumable(ResumeSpec.defaults().window(64))
                .block(TIMEOUT);
        Mono<List<byte[]>> received = session.receive().take(MESSAGES).collectList();
        Mono<Void> sent = session.send(Flux.range(0, MESSAGES).map(ResumeConformance::message));
        try {
            List<byte[]> atClient = received.zipWith(sent.thenReturn(true), (r, s) -> r).block(TIMEOUT);
            assertEveryMessageOnceInOrder(atClient);
            assertEveryMessageOnceInOrder(atServer);
            assertThat(session.resumes()).isEqualTo(2);
            assertThat(serverConnections).hasSize(3);
        } finally {
            session.dispose();
        }
    }

    @Test
    void aSessionNotResumedWithinItsTimeoutEndsTypedOnBothSidesWithEverythingPending() {
        ResumeSpec spec = ResumeSpec.defaults().sessionTimeout(Duration.ofMillis(300)).window(4);
        AtomicReference<ResumableSession> atServer = new AtomicReference<>();
        RivuletServer.BoundServer server = serve(bindAddress("resume-expiry"), spec, s -> {
            atServer.set(s);
            return Mono.never(); // takes nothing: the client's sends stay pending
        });
        ResumableSession session = client(server.address()).connectResumable(spec).block(TIMEOUT);
        Mono<Void> pending = session.send(Flux.range(0, 10).map(ResumeConformance::message));
        StepVerifier.create(pending)
                .then(() -> {
                    server.disposeNow(TIMEOUT); // gone for good: nothing to resume with
                    servers.remove(server);
                })
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(SessionExpiredException.class)
                        .hasMessageContaining("not resumed within"))
                .verify(TIMEOUT);
        StepVerifier.create(session.receive()).expectError(SessionExpiredException.class).verify(TIMEOUT);
        StepVerifier.create(session.onClose()).expectError(SessionExpiredException.class).verify(TIMEOUT);
        StepVerifier.create(atServer.get().onClose()).expectError(SessionExpiredException.class).verify(TIMEOUT);
        StepVerifier.create(session.send("after")).expectError(ResourceClosedException.class).verify(TIMEOUT);
        assertThat(session.isConnected()).isFalse();
    }

    @Test
    void aResumeAfterTheServerExpiredTheSessionIsRefusedTyped() throws InterruptedException {
        AtomicBoolean away = new AtomicBoolean();
        AtomicReference<ResumableSession> atServer = new AtomicReference<>();
        RivuletServer.BoundServer server = serve(bindAddress("resume-refused"),
                ResumeSpec.defaults().sessionTimeout(Duration.ofMillis(200)), s -> {
                    atServer.set(s);
                    return s.receive().then();
                });
        String address = server.address();
        ResumableSession session = RivuletClient.create()
                .remoteAddress(() -> away.get() ? bindAddress("resume-nobody-here") : address)
                .doOnConnected(clientConnections::add)
                .connectResumable(ResumeSpec.defaults().sessionTimeout(Duration.ofSeconds(30))
                        .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(100)))
                .block(TIMEOUT);
        await(() -> atServer.get() != null, "the server's side of the session began");
        away.set(true);
        clientConnections.getLast().dispose(); // the client cannot come back until the server has expired it
        // Let it back only once the server's side has ended (not after a fixed time: on a busy machine the server
        // may notice the loss late, and a client back before the expiry would rightly be resumed).
        atServer.get().onClose()
                .onErrorResume(SessionExpiredException.class, e -> Mono.empty())
                .doFinally(signal -> away.set(false))
                .subscribe();
        StepVerifier.create(session.onClose())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(SessionExpiredException.class)
                        .hasMessageContaining("refused"))
                .verify(TIMEOUT);
        StepVerifier.create(session.send("late")).expectError(ResourceClosedException.class).verify(TIMEOUT);
    }

    @Test
    void aResumeReplaysExactlyWhatThePeerLackedAndCountsIt() throws Exception {
        int lacked = 20;
        AtomicBoolean away = new AtomicBoolean();
        List<byte[]> atServer = new CopyOnWriteArrayList<>();
        AtomicReference<ResumableSession> serverSide = new AtomicReference<>();
        RivuletServer.BoundServer server = serve(bindAddress("resume-replay"), ResumeSpec.defaults(), s -> {
            serverSide.set(s);
            return s.receive().doOnNext(atServer::add).then();
        });
        String address = server.address();
        ResumableSession session = RivuletClient.create()
                .remoteAddress(() -> away.get() ? bindAddress("resume-replay-nobody-here") : address)
                .doOnConnected(clientConnections::add)
                .connectResumable(ResumeSpec.defaults().reconnectBackoff(Duration.ofMillis(20), Duration.ofMillis(50)))
                .block(TIMEOUT);
        try {
            session.send(message(0)).block(TIMEOUT); // taken and acknowledged: nothing of it is left to replay
            away.set(true);
            clientConnections.getLast().dispose();
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (session.isConnected()) {
                assertThat(System.nanoTime()).as("the session noticed the break").isLessThan(deadline);
                Thread.sleep(1);
            }
            // Positioned and kept while there is no connection: the server lacks every one of them when it resumes.
            CompletableFuture<Void> sending = session.send(Flux.range(1, lacked).map(ResumeConformance::message))
                    .toFuture();
            away.set(false);
            sending.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

            assertThat(session.resumes()).isOne();
            assertThat(session.replayed()).as("messages the client replayed").isEqualTo(lacked);
            assertThat(serverSide.get().replayed()).as("messages the server replayed").isZero();
            assertThat(atServer).hasSize(lacked + 1);
            for (int i = 0; i <= lacked; i++) {
                assertThat(atServer.get(i)).as("message %d", i).isEqualTo(message(i));
            }
        } finally {
            session.dispose();
        }
    }

    @Test
    void aRestartedServerIsANewSessionNotAResume() {
        String address = bindAddress("resume-restart");
        RivuletServer.BoundServer first = serve(address, ResumeSpec.defaults(), s -> s.receive().then());
        ResumableSession session = client(first.address()).connectResumable(ResumeSpec.defaults()).block(TIMEOUT);
        String bound = first.address();
        first.disposeNow(TIMEOUT);
        servers.remove(first);
        serve(bound, ResumeSpec.defaults(), s -> s.receive().then()); // the same address, a fresh process's state
        StepVerifier.create(session.onClose()).expectError(SessionExpiredException.class).verify(TIMEOUT);

        ResumableSession fresh = client(bound).connectResumable(ResumeSpec.defaults()).block(TIMEOUT);
        try {
            StepVerifier.create(fresh.send("hello")).verifyComplete();
        } finally {
            fresh.dispose();
        }
    }

    @Test
    void closingASessionWhileItIsBeingResumedEndsEverythingAndLeavesNoConnectionOpen() throws Exception {
        RivuletServer.BoundServer server = serve(bindAddress("resume-cancel"), ResumeSpec.defaults().window(2),
                s -> Mono.never());
        String address = server.address();
        ResumableSession session = client(address).connectResumable(ResumeSpec.defaults()).block(TIMEOUT);
        CompletableFuture<Signal<Void>> sending = session.send(Flux.range(0, 10).map(ResumeConformance::message))
                .materialize().toFuture();
        CompletableFuture<List<byte[]>> receiving = session.receive().collectList().toFuture();

        // The server goes, and something that accepts connections but never answers a resume takes its place: the
        // client has connected again and is waiting for the answer to its resume when the session is closed.
        server.disposeNow(TIMEOUT);
        servers.remove(server);
        servers.add(RivuletServer.create().bindAddress(address)
                .doOnConnection(serverConnections::add)
                .handle(ep -> Mono.never())
                .bindNow());
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (clientConnections.size() < 2) {
            assertThat(System.nanoTime()).as("the client connected again").isLessThan(deadline);
            Thread.sleep(5);
        }
        session.dispose();

        assertThat(sending.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).getThrowable())
                .isInstanceOf(ResourceClosedException.class);
        assertThat(receiving.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isEmpty();
        StepVerifier.create(session.onClose()).expectComplete().verify(TIMEOUT);
        for (Endpoint ep : clientConnections) {
            StepVerifier.create(ep.onClose()).expectComplete().verify(TIMEOUT);
        }
        for (Endpoint ep : serverConnections) {
            StepVerifier.create(ep.onClose()).expectComplete().verify(TIMEOUT);
        }
    }

    @Test
    void aConnectionAbandonedWhileItIsBeingSetUpIsClosed() throws Exception {
        // What a resume does when the session is closed while it connects again: the client gives the set-up up.
        RivuletServer.BoundServer server = serve(bindAddress("resume-abandoned"), ResumeSpec.defaults(),
                s -> Mono.never());
        for (int i = 0; i < 20; i++) {
            int before = serverConnections.size();
            Disposable connecting = client(server.address()).connect().subscribe(clientConnections::add);
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (serverConnections.size() == before) {
                assertThat(System.nanoTime()).as("the server accepted connection %d", i).isLessThan(deadline);
                Thread.sleep(0, 100_000);
            }
            connecting.dispose();
        }
        clientConnections.forEach(Endpoint::dispose); // those that were made before the subscriber gave up
        // Promptly: not by the peer timeout of a connection nobody holds (it would never come, as both sides are up).
        StepVerifier.create(Flux.fromIterable(serverConnections).flatMap(Endpoint::onClose))
                .expectComplete().verify(Duration.ofSeconds(5));
    }

    // ---- puts, gets and atomics on a window the peer exposed to the session ----------------------------------------

    /** A server that exposes {@code memory} to each session and sends the session the handle as its first message. */
    private RivuletServer.BoundServer serveWindow(String name, ResumeSpec spec, MemorySegment memory,
                                                  AtomicReference<SessionWindow> exposed, Access... rights) {
        return serve(bindAddress(name), spec, session -> {
            SessionWindow window = session.expose(memory, rights);
            exposed.set(window);
            return session.send(window.remote().toBytes()).then(Mono.never());
        });
    }

    /** The handle the server sent first (the session's only subscription to {@code receive()}). */
    private static SessionMemory handleFrom(ResumableSession session) {
        return session.receive().next().map(SessionMemory::fromBytes).block(TIMEOUT);
    }

    /** {@code n} bytes that depend on {@code i}, so a chunk written twice, torn or misplaced shows. */
    private static byte[] chunk(int i, int n) {
        byte[] c = new byte[n];
        for (int j = 0; j < n; j++) {
            c[j] = (byte) (i * 131 + j * 7 + (j >>> 8));
        }
        return c;
    }

    /**
     * Breaks connections inside a stream of calls split into blocks: the calls of block {@code k + 1} start only once
     * break {@code k} happened, so each break falls while the stream runs (with calls of block {@code k} still in
     * flight, unless they all finished before the connection went) however fast the transport is.
     */
    private static final class Breaks {
        private final List<Sinks.Empty<Void>> done = new ArrayList<>();

        Breaks(int breaks) {
            for (int i = 0; i < breaks; i++) {
                done.add(Sinks.empty());
            }
        }

        /** {@code call} of block {@code block}, held back until the break before it happened. */
        <T> Mono<T> inBlock(int block, Mono<T> call) {
            return block == 0 ? call : done.get(block - 1).asMono().then(call);
        }

        /** Break {@code k}: ends {@code connection} and lets block {@code k + 1} start once it has gone. */
        void breakNow(int k, Endpoint connection) {
            connection.onClose().subscribe(null, e -> done.get(k).tryEmitEmpty(), () -> done.get(k).tryEmitEmpty());
            breakLater(connection);
        }
    }

    private static void await(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as(what).isLessThan(deadline);
            Thread.sleep(2);
        }
    }

    @Test
    void aCounterUpdatedByFetchAddsAcrossBrokenConnectionsEndsAtTheirNumberWithEachPreviousValueOnce() {
        MemorySegment counter = arena.allocate(Long.BYTES, Long.BYTES);
        RivuletServer.BoundServer server = serveWindow("resume-counter", ResumeSpec.defaults(), counter,
                new AtomicReference<>(), Access.REMOTE_ATOMIC);
        ResumableSession session = client(server.address()).connectResumable(ResumeSpec.defaults()).block(TIMEOUT);
        try {
            SessionMemory handle = handleFrom(session);
            AtomicInteger answered = new AtomicInteger();
            int fifth = FETCH_ADDS / 5;
            Breaks breaks = new Breaks(4);
            List<Long> previous = Flux.range(0, FETCH_ADDS)
                    .flatMap(i -> breaks.inBlock(i / fifth, session.fetchAdd(handle, 1)), 512)
                    .doOnNext(p -> {
                        int n = answered.incrementAndGet() + fifth / 2; // a break halfway through a block
                        if (n % fifth == 0 && n < FETCH_ADDS) { // four breaks, from either side in turn
                            int k = n / fifth - 1;
                            breaks.breakNow(k, k % 2 == 0 ? serverConnections.getLast() : clientConnections.getLast());
                        }
                    })
                    .collectList()
                    .block(TIMEOUT);
            assertThat((long) WORD.getVolatile(counter, 0L)).isEqualTo(FETCH_ADDS);
            long[] sorted = previous.stream().mapToLong(Long::longValue).sorted().toArray();
            assertThat(sorted).hasSize(FETCH_ADDS);
            for (int i = 0; i < FETCH_ADDS; i++) {
                assertThat(sorted[i]).as("previous value %d", i).isEqualTo(i);
            }
            assertThat(session.resumes()).isEqualTo(4);
        } finally {
            session.dispose();
        }
    }

    @Test
    void putsIssuedAgainAcrossABrokenConnectionLeaveTheRightBytesAndGetsReadThemBackAcrossAnother() {
        int size = 512;
        int chunks = 512;
        MemorySegment region = arena.allocate((long) size * chunks, 64);
        RivuletServer.BoundServer server = serveWindow("resume-puts", ResumeSpec.defaults().window(32), region,
                new AtomicReference<>(), Access.REMOTE_READ, Access.REMOTE_WRITE);
        ResumableSession session = client(server.address()).connectResumable(ResumeSpec.defaults()).block(TIMEOUT);
        try {
            SessionMemory handle = handleFrom(session);
            AtomicInteger written = new AtomicInteger();
            Breaks putBreak = new Breaks(1);
            Flux.range(0, chunks)
                    .flatMap(i -> putBreak.inBlock(2 * i / chunks, session.put(chunk(i, size),
                            handle.slice((long) i * size, size)))
                            .doOnSuccess(v -> {
                                if (written.incrementAndGet() == 1) {
                                    putBreak.breakNow(0, serverConnections.getLast());
                                }
                            }), 64)
                    .then()
                    .block(TIMEOUT);
            CRC32C expected = new CRC32C();
            for (int i = 0; i < chunks; i++) {
                expected.update(chunk(i, size));
            }
            CRC32C atServer = new CRC32C();
            atServer.update(region.asByteBuffer());
            assertThat(atServer.getValue()).as("checksum of the server's window").isEqualTo(expected.getValue());

            AtomicInteger read = new AtomicInteger();
            Breaks getBreak = new Breaks(1);
            List<byte[]> back = Flux.range(0, chunks)
                    .flatMapSequential(i -> getBreak.inBlock(2 * i / chunks,
                                    session.get(handle.slice((long) i * size, size)))
                            .doOnSuccess(b -> {
                                if (read.incrementAndGet() == 1) {
                                    getBreak.breakNow(0, clientConnections.getLast());
                                }
                            }), 64)
                    .collectList()
                    .block(TIMEOUT);
            assertThat(back).hasSize(chunks);
            for (int i = 0; i < chunks; i++) {
                assertThat(back.get(i)).as("chunk %d", i).isEqualTo(chunk(i, size));
            }
            assertThat(session.resumes()).isEqualTo(2);
        } finally {
            session.dispose();
        }
    }

    @Test
    void compareAndSwapSwapsOnlyFromTheExpectedValueAndSwapAlwaysBothEmittingThePreviousValue() {
        MemorySegment word = arena.allocate(Long.BYTES, Long.BYTES);
        RivuletServer.BoundServer server = serveWindow("resume-cas", ResumeSpec.defaults(), word,
                new AtomicReference<>(), Access.REMOTE_ATOMIC);
        ResumableSession session = client(server.address()).connectResumable(ResumeSpec.defaults()).block(TIMEOUT);
        try {
            SessionMemory handle = handleFrom(session);
            StepVerifier.create(session.compareAndSwap(handle, 0, 7)).expectNext(0L).verifyComplete();
            StepVerifier.create(session.compareAndSwap(handle, 0, 9)).expectNext(7L).verifyComplete(); // not 0: kept
            StepVerifier.create(session.swap(handle, -1)).expectNext(7L).verifyComplete();
            assertThat((long) WORD.getVolatile(word, 0L)).isEqualTo(-1);
        } finally {
            session.dispose();
        }
    }

    @Test
    void anOperationOutsideItsWindowWithoutItsRightOrWithAForgedKeyIsRefusedTypedAndTheSessionGoesOn() {
        MemorySegment word = arena.allocate(64, Long.BYTES);
        RivuletServer.BoundServer server = serveWindow("resume-refused-ops", ResumeSpec.defaults(), word,
                new AtomicReference<>(), Access.REMOTE_READ, Access.REMOTE_ATOMIC);
        ResumableSession session = client(server.address()).connectResumable(ResumeSpec.defaults()).block(TIMEOUT);
        try {
            SessionMemory handle = handleFrom(session);
            byte[] longer = handle.toBytes();
            ByteBuffer.wrap(longer).putLong(36, handle.length() + 64); // the length field, widened
            SessionMemory beyond = SessionMemory.fromBytes(longer).slice(handle.length(), 64);
            byte[] forged = handle.toBytes();
            ByteBuffer.wrap(forged).putLong(20, ~ByteBuffer.wrap(forged).getLong(20)); // the key, changed

            StepVerifier.create(session.get(beyond)).expectError(RemoteAccessException.class).verify(TIMEOUT);
            StepVerifier.create(session.fetchAdd(beyond, 1)).expectError(RemoteAccessException.class).verify(TIMEOUT);
            StepVerifier.create(session.fetchAdd(SessionMemory.fromBytes(forged), 1))
                    .expectError(RemoteAccessException.class).verify(TIMEOUT);
            StepVerifier.create(session.put(new byte[8], handle)) // no write right
                    .expectError(RemoteAccessException.class).verify(TIMEOUT);
            StepVerifier.create(session.fetchAdd(handle.slice(4, 8), 1)) // a word that is not 8-byte aligned
                    .expectError(RemoteAccessException.class).verify(TIMEOUT);
            StepVerifier.create(session.put(new byte[16], handle.slice(0, 8))) // longer than its handle
                    .expectError(InvalidRequestException.class).verify(TIMEOUT);
            assertThatThrownBy(() -> handle.slice(60, 8)).isInstanceOf(InvalidRequestException.class);

            StepVerifier.create(session.fetchAdd(handle, 5)).expectNext(0L).verifyComplete(); // nothing was applied
            assertThat((long) WORD.getVolatile(word, 0L)).isEqualTo(5);
            assertThat(session.isConnected()).isTrue();
            assertThat(session.resumes()).isZero();
        } finally {
            session.dispose();
        }
    }

    @Test
    void aWithdrawnWindowAndAHandleOfAnotherSessionAreRefusedTyped() {
        AtomicReference<SessionWindow> exposed = new AtomicReference<>();
        RivuletServer.BoundServer server = serveWindow("resume-foreign-ops", ResumeSpec.defaults(),
                arena.allocate(8, 8), exposed, Access.REMOTE_ATOMIC);
        ResumableSession first = client(server.address()).connectResumable(ResumeSpec.defaults()).block(TIMEOUT);
        SessionMemory firstHandle = handleFrom(first);
        SessionWindow firstWindow = exposed.get();
        ResumableSession second = client(server.address()).connectResumable(ResumeSpec.defaults()).block(TIMEOUT);
        try {
            SessionMemory secondHandle = handleFrom(second);
            StepVerifier.create(first.fetchAdd(secondHandle, 1)).expectError(RemoteAccessException.class)
                    .verify(TIMEOUT);
            StepVerifier.create(second.fetchAdd(secondHandle, 1)).expectNext(0L).verifyComplete();

            firstWindow.close();
            assertThat(firstWindow.isOpen()).isFalse();
            StepVerifier.create(first.fetchAdd(firstHandle, 1)).expectError(RemoteAccessException.class)
                    .verify(TIMEOUT);
            StepVerifier.create(Mono.fromCallable(firstWindow::remote)).expectError(ResourceClosedException.class)
                    .verify(TIMEOUT);
        } finally {
            first.dispose();
            second.dispose();
        }
    }

    @Test
    void afterASessionWasClosedItsOperationsFailClosedAndItsWindowsAreWithdrawn() {
        AtomicReference<SessionWindow> exposed = new AtomicReference<>();
        AtomicReference<ResumableSession> atServer = new AtomicReference<>();
        RivuletServer.BoundServer server = serve(bindAddress("resume-closed-ops"), ResumeSpec.defaults(), s -> {
            atServer.set(s);
            exposed.set(s.expose(arena.allocate(8, 8), Access.REMOTE_ATOMIC));
            return s.send(exposed.get().remote().toBytes()).then(Mono.never());
        });
        ResumableSession session = client(server.address()).connectResumable(ResumeSpec.defaults()).block(TIMEOUT);
        SessionMemory handle = handleFrom(session);
        StepVerifier.create(session.fetchAdd(handle, 1)).expectNext(0L).verifyComplete();
        session.dispose();

        StepVerifier.create(session.fetchAdd(handle, 1)).expectError(ResourceClosedException.class).verify(TIMEOUT);
        StepVerifier.create(session.get(handle)).expectError(ResourceClosedException.class).verify(TIMEOUT);
        StepVerifier.create(atServer.get().onClose()).verifyComplete();
        assertThat(exposed.get().isOpen()).isFalse();
        StepVerifier.create(Mono.fromCallable(() -> atServer.get().expose(arena.allocate(8, 8), Access.REMOTE_READ)))
                .expectError(ResourceClosedException.class).verify(TIMEOUT);
    }

    @Test
    void operationsPendingWhenASessionExpiresFailWithTheExpiry() {
        ResumeSpec spec = ResumeSpec.defaults().sessionTimeout(Duration.ofMillis(300));
        RivuletServer.BoundServer server = serveWindow("resume-expiry-ops", spec, arena.allocate(8, 8),
                new AtomicReference<>(), Access.REMOTE_ATOMIC);
        ResumableSession session = client(server.address()).connectResumable(spec).block(TIMEOUT);
        SessionMemory handle = handleFrom(session);
        StepVerifier.create(session.fetchAdd(handle, 1)).expectNext(0L).verifyComplete();
        server.disposeNow(TIMEOUT); // gone for good: nothing to resume with
        servers.remove(server);

        StepVerifier.create(session.fetchAdd(handle, 1)).expectError(SessionExpiredException.class).verify(TIMEOUT);
        StepVerifier.create(session.put(new byte[8], handle)).expectError(ResourceClosedException.class)
                .verify(TIMEOUT);
    }

    @Test
    void operationsCancelledWhileTheSessionIsBeingResumedAreNeverAppliedAndHoldNoPlaceInTheWindow()
            throws Exception {
        AtomicBoolean away = new AtomicBoolean();
        MemorySegment counter = arena.allocate(Long.BYTES, Long.BYTES);
        ResumeSpec spec = ResumeSpec.defaults().window(4).reconnectBackoff(Duration.ofMillis(5), Duration.ofMillis(20));
        RivuletServer.BoundServer server = serveWindow("resume-cancel-ops", spec, counter, new AtomicReference<>(),
                Access.REMOTE_ATOMIC);
        String address = server.address();
        ResumableSession session = RivuletClient.create()
                .remoteAddress(() -> away.get() ? bindAddress("resume-nobody-here") : address)
                .doOnConnected(clientConnections::add)
                .connectResumable(spec)
                .block(TIMEOUT);
        try {
            SessionMemory handle = handleFrom(session);
            StepVerifier.create(Flux.range(0, 10).concatMap(i -> session.fetchAdd(handle, 1)).count())
                    .expectNext(10L).verifyComplete();
            away.set(true); // the client cannot come back until the test says so
            clientConnections.getLast().dispose();
            await(() -> !session.isConnected(), "the session lost its connection");
            List<Disposable> cancelled = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                cancelled.add(session.fetchAdd(handle, 1).subscribe());
                cancelled.add(session.put(new byte[8], handle).subscribe());
            }
            cancelled.forEach(Disposable::dispose);
            away.set(false);
            await(session::isConnected, "the session was resumed");

            StepVerifier.create(session.fetchAdd(handle, 0)).expectNext(10L).verifyComplete();
            StepVerifier.create(Flux.range(0, 16).flatMap(i -> session.fetchAdd(handle, 1), 16).count())
                    .expectNext(16L).verifyComplete(); // four windows' worth: no place was kept by a cancelled one
            assertThat((long) WORD.getVolatile(counter, 0L)).isEqualTo(26);
        } finally {
            session.dispose();
        }
    }

    @Test
    void operationsPendingWhenASessionIsClosedWhileBeingResumedFailClosed() throws Exception {
        AtomicBoolean away = new AtomicBoolean();
        RivuletServer.BoundServer server = serveWindow("resume-close-ops", ResumeSpec.defaults(),
                arena.allocate(8, 8), new AtomicReference<>(), Access.REMOTE_ATOMIC);
        String address = server.address();
        ResumableSession session = RivuletClient.create()
                .remoteAddress(() -> away.get() ? bindAddress("resume-nobody-here") : address)
                .doOnConnected(clientConnections::add)
                .connectResumable(ResumeSpec.defaults())
                .block(TIMEOUT);
        SessionMemory handle = handleFrom(session);
        away.set(true);
        clientConnections.getLast().dispose();
        await(() -> !session.isConnected(), "the session lost its connection");
        CompletableFuture<Signal<Long>> pending = session.fetchAdd(handle, 1).materialize().toFuture();
        session.dispose();
        assertThat(pending.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS).getThrowable())
                .isInstanceOf(ResourceClosedException.class);
    }
}
