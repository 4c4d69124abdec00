package dev.rivulet.conformance;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.SessionExpiredException;
import dev.rivulet.core.resume.ResumableSession;
import dev.rivulet.core.resume.ResumeSpec;
import dev.rivulet.testing.NoLeaks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Signal;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Resumable sessions over a transport: what the application sends arrives exactly once and in order across
 * connections broken from either side, a session that cannot be resumed ends typed with everything pending, and a
 * session closed while it is being resumed leaves nothing behind. A transport's test names its bind address.
 */
@Timeout(120)
@ExtendWith(NoLeaks.class)
public abstract class ResumeConformance {

    private static final Duration TIMEOUT = Duration.ofSeconds(25);
    private static final int MESSAGES = 10_000;

    private final List<Endpoint> serverConnections = new CopyOnWriteArrayList<>();
    private final List<Endpoint> clientConnections = new CopyOnWriteArrayList<>();
    private final List<RivuletServer.BoundServer> servers = new ArrayList<>();

    /** An address to bind a server at, e.g. {@code local://name} or {@code uring://127.0.0.1:0}. */
    protected abstract String bindAddress(String name);

    @AfterEach
    void closeEverything() {
        servers.forEach(s -> s.disposeNow(TIMEOUT));
        serverConnections.forEach(Endpoint::dispose);
        clientConnections.forEach(Endpoint::dispose);
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
    void aResumeAfterTheServerExpiredTheSessionIsRefusedTyped() {
        AtomicBoolean away = new AtomicBoolean();
        RivuletServer.BoundServer server = serve(bindAddress("resume-refused"),
                ResumeSpec.defaults().sessionTimeout(Duration.ofMillis(200)), s -> s.receive().then());
        String address = server.address();
        ResumableSession session = RivuletClient.create()
                .remoteAddress(() -> away.get() ? bindAddress("resume-nobody-here") : address)
                .doOnConnected(clientConnections::add)
                .connectResumable(ResumeSpec.defaults().sessionTimeout(Duration.ofSeconds(30))
                        .reconnectBackoff(Duration.ofMillis(50), Duration.ofMillis(100)))
                .block(TIMEOUT);
        away.set(true);
        clientConnections.getLast().dispose(); // the client cannot come back until the server has expired it
        Mono.delay(Duration.ofMillis(600)).then(Mono.fromRunnable(() -> away.set(false))).subscribe();
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
}
