package dev.rivulet.core.resume;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.RivuletServer.BoundServer;
import dev.rivulet.core.memory.Access;
import dev.rivulet.testing.NoLeaks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the session protocol refuses and bounds, seen from inside: forged tokens, the replay window, operations
 * applied once and the window of operations.
 */
@Timeout(60)
@ExtendWith(NoLeaks.class)
class ResumeProtocolTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @Test
    void aResumeWithAForgedTokenIsRefusedCreatesNothingAndLeavesOtherSessionsAlone() {
        AtomicInteger handled = new AtomicInteger();
        ResumeAcceptor acceptor = ResumeAcceptor.create(ResumeSpec.defaults(), s -> {
            handled.incrementAndGet();
            return s.send(s.receive());
        });
        BoundServer server = RivuletServer.create().bindAddress("local://resume-forged").handle(acceptor).bindNow();
        ResumableSession real = RivuletClient.create().remoteAddress(server.address())
                .connectResumable(ResumeSpec.defaults()).block(TIMEOUT);
        Endpoint forger = RivuletClient.create().remoteAddress(server.address()).connectNow(TIMEOUT);
        try {
            Mono<byte[]> answer = forger.receive().asByteArray().next();
            forger.send(Frames.resume(SessionToken.random(), 0, 0)).subscribe();
            StepVerifier.create(answer)
                    .assertNext(frame -> {
                        assertThat(frame[0]).isEqualTo(Frames.REJECTED);
                        assertThat(new String(frame, 1, frame.length - 1, StandardCharsets.UTF_8))
                                .contains("no such session");
                    })
                    .verifyComplete();
            StepVerifier.create(forger.onClose()).verifyComplete(); // the server closed the connection
            assertThat(acceptor.sessions()).isOne();
            assertThat(handled).hasValue(1);
            Mono<String> echoed = real.receive().next().map(b -> new String(b, StandardCharsets.UTF_8));
            StepVerifier.create(echoed.zipWith(real.send("still mine").thenReturn(1), (e, x) -> e))
                    .expectNext("still mine").verifyComplete();
        } finally {
            forger.dispose();
            real.dispose();
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void aSenderKeepsAtMostTheReceiversWindowOfMessagesAndTheRestWait() throws Exception {
        AtomicReference<ResumableSession> atServer = new AtomicReference<>();
        BoundServer server = RivuletServer.create().bindAddress("local://resume-window")
                .handleResumable(ResumeSpec.defaults().window(8), s -> {
                    atServer.set(s);
                    return Mono.never(); // takes nothing until the test says so
                })
                .bindNow();
        ResumableSession client = RivuletClient.create().remoteAddress(server.address())
                .connectResumable(ResumeSpec.defaults()).block(TIMEOUT);
        try {
            CompletableFuture<Void> sent = client.send(Flux.range(0, 100).map(i -> new byte[] {i.byteValue()}))
                    .toFuture();
            Session session = (Session) client;
            awaitTrue(() -> session.kept() == 8);
            Thread.sleep(50);
            assertThat(session.kept()).isEqualTo(8);
            assertThat(sent).isNotDone();

            List<byte[]> taken = atServer.get().receive().take(100).collectList().block(TIMEOUT);
            sent.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            assertThat(taken).hasSize(100);
            for (int i = 0; i < 100; i++) {
                assertThat(taken.get(i)).containsExactly((byte) i);
            }
            assertThat(session.kept()).isZero();
        } finally {
            client.dispose();
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void anEchoCarriesOnAcrossABrokenConnection() {
        List<Endpoint> serverConnections = new CopyOnWriteArrayList<>();
        // snippet:begin resume
        BoundServer server = RivuletServer.create()
                .bindAddress("local://resume-echo")
                .handleResumable(ResumeSpec.defaults(), session -> session.send(session.receive()))  // echo
                .doOnConnection(serverConnections::add)   // each connection as it comes: a session may see several
                .bindNow();
        ResumableSession session = RivuletClient.create()
                .remoteAddress("local://resume-echo")
                .connectResumable(ResumeSpec.defaults()
                        .sessionTimeout(Duration.ofSeconds(30))   // how long it outlives a lost connection
                        .window(256))                             // messages the server may send ahead of us
                .block(Duration.ofSeconds(10));
        Flux<String> answers = session.receive().map(b -> new String(b, StandardCharsets.UTF_8));  // once, in order
        // snippet:end
        try {
            StepVerifier.create(answers.take(3))
                    .then(() -> session.send("a").block(TIMEOUT))
                    .expectNext("a")
                    .then(() -> {
                        serverConnections.getFirst().dispose(); // the connection breaks ...
                        session.send("b").and(session.send("c")).subscribe(); // ... sends wait for the resume
                    })
                    .expectNext("b", "c")
                    .verifyComplete();
            assertThat(session.resumes()).isOne();
        } finally {
            session.dispose();
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void aCounterExposedToASessionIsUpdatedOnceByEachCallAcrossABrokenConnection() {
        List<Endpoint> serverConnections = new CopyOnWriteArrayList<>();
        try (Arena arena = Arena.ofShared()) {
            // snippet:begin session-memory
            MemorySegment counter = arena.allocate(Long.BYTES, Long.BYTES);       // the server's, 8-byte aligned
            BoundServer server = RivuletServer.create()
                    .bindAddress("local://resume-counter")
                    .handleResumable(ResumeSpec.defaults(), session -> {
                        SessionWindow window = session.expose(counter, Access.REMOTE_ATOMIC);  // for this session
                        return session.send(window.remote().toBytes()).then(Mono.never());   // its handle
                    })
                    .doOnConnection(serverConnections::add)
                    .bindNow();
            ResumableSession session = RivuletClient.create()
                    .remoteAddress("local://resume-counter")
                    .connectResumable(ResumeSpec.defaults())
                    .block(Duration.ofSeconds(10));
            SessionMemory remote = session.receive().next()              // the server's first message
                    .map(SessionMemory::fromBytes).block(Duration.ofSeconds(10));
            Mono<Long> previous = session.fetchAdd(remote, 1);   // applied once, even if the connection breaks
            // snippet:end
            try {
                StepVerifier.create(previous).expectNext(0L).verifyComplete();
                serverConnections.getFirst().dispose(); // the connection breaks: the next call waits for the resume
                StepVerifier.create(session.fetchAdd(remote, 1)).expectNext(1L).verifyComplete();
                assertThat(counter.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(2);
                assertThat(session.resumes()).isOne();
            } finally {
                session.dispose();
                server.disposeNow(TIMEOUT);
            }
        }
    }

    @Test
    void anOperationIssuedAgainOnANewConnectionIsAnsweredFromItsKeptAnswerAndNotAppliedAgain() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment counter = arena.allocate(Long.BYTES, Long.BYTES);
            AtomicReference<SessionMemory> handle = new AtomicReference<>();
            AtomicReference<ResumableSession> atServer = new AtomicReference<>();
            BoundServer server = RivuletServer.create().bindAddress("local://resume-op-once")
                    .handleResumable(ResumeSpec.defaults(), s -> {
                        atServer.set(s);
                        handle.set(s.expose(counter, Access.REMOTE_ATOMIC).remote());
                        return Mono.never();
                    })
                    .bindNow();
            // A requester by hand, so that the test decides what is issued again: the library's own re-issues the
            // operations it has no answer for.
            Endpoint first = RivuletClient.create().remoteAddress(server.address()).connectNow(TIMEOUT);
            BlockingQueue<byte[]> fromServer = new LinkedBlockingQueue<>();
            first.receive().asByteArray().subscribe(fromServer::add);
            first.send(Frames.setup(16)).block(TIMEOUT);
            ByteBuffer setupOk = ByteBuffer.wrap(next(fromServer, Frames.SETUP_OK), 1, SessionToken.BYTES + 4);
            SessionToken token = SessionToken.read(setupOk);
            awaitTrue(() -> handle.get() != null);
            byte[] fetchAdd5 = Frames.op(1, Frames.request(Frames.FETCH_ADD, handle.get(), Long.BYTES).putLong(5)
                    .array());
            first.send(fetchAdd5).block(TIMEOUT);
            assertThat(previousValue(next(fromServer, Frames.ANSWER), 1)).isZero();
            first.dispose(); // the answer counts as lost: the requester issues the operation again

            Endpoint second = RivuletClient.create().remoteAddress(server.address()).connectNow(TIMEOUT);
            try {
                BlockingQueue<byte[]> again = new LinkedBlockingQueue<>();
                second.receive().asByteArray().subscribe(again::add);
                second.send(Frames.resume(token, 0, 0)).block(TIMEOUT);
                next(again, Frames.RESUME_OK);
                second.send(fetchAdd5).block(TIMEOUT);
                assertThat(previousValue(next(again, Frames.ANSWER), 1)).isZero(); // the kept answer
                assertThat(counter.get(ValueLayout.JAVA_LONG, 0)).isEqualTo(5); // applied once
                second.send(Frames.op(2, Frames.request(Frames.FETCH_ADD, handle.get(), Long.BYTES).putLong(5)
                        .array())).block(TIMEOUT);
                assertThat(previousValue(next(again, Frames.ANSWER), 2)).isEqualTo(5);

                Session session = (Session) atServer.get();
                assertThat(session.keptAnswers()).isEqualTo(2);
                second.send(Frames.answered(2)).block(TIMEOUT);
                awaitTrue(() -> session.keptAnswers() == 0);
            } finally {
                second.dispose();
                server.disposeNow(TIMEOUT);
            }
        }
    }

    @Test
    void aRequesterKeepsAtMostTheTargetsWindowOfOperationsAndTheRestWait() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment counter = arena.allocate(Long.BYTES, Long.BYTES);
            BoundServer server = RivuletServer.create().bindAddress("local://resume-op-window")
                    .handleResumable(ResumeSpec.defaults().window(8), s -> {
                        SessionWindow w = s.expose(counter, Access.REMOTE_ATOMIC);
                        return s.send(w.remote().toBytes()).then(Mono.never());
                    })
                    .bindNow();
            ResumableSession client = RivuletClient.create().remoteAddress(server.address())
                    .connectResumable(ResumeSpec.defaults()).block(TIMEOUT);
            try {
                SessionMemory handle = client.receive().next().map(SessionMemory::fromBytes).block(TIMEOUT);
                Session session = (Session) client;
                AtomicInteger mostInFlight = new AtomicInteger();
                AtomicInteger mostWaiting = new AtomicInteger();
                List<Long> previous = Flux.range(0, 1000)
                        .flatMap(i -> client.fetchAdd(handle, 1), 1000)
                        .doOnNext(p -> {
                            mostInFlight.accumulateAndGet(session.operationsInFlight(), Math::max);
                            mostWaiting.accumulateAndGet(session.operationsWaiting(), Math::max);
                        })
                        .collectList().block(TIMEOUT);
                assertThat(previous).hasSize(1000).doesNotHaveDuplicates();
                assertThat(mostInFlight).hasValueBetween(1, 8);
                assertThat(mostWaiting).hasValueGreaterThan(0);
                assertThat(session.operationsInFlight() + session.operationsWaiting()).isZero();
            } finally {
                client.dispose();
                server.disposeNow(TIMEOUT);
            }
        }
    }

    /** The next frame of {@code type} (others, such as acknowledgements, are skipped). */
    private static byte[] next(BlockingQueue<byte[]> frames, byte type) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            byte[] frame = frames.poll(10, TimeUnit.MILLISECONDS);
            if (frame != null && frame[0] == type) {
                return frame;
            }
        }
        throw new AssertionError("no frame of type " + type + " within " + TIMEOUT);
    }

    /** The previous value an ANSWER frame to operation {@code id} carries. */
    private static long previousValue(byte[] answer, long id) {
        ByteBuffer b = ByteBuffer.wrap(answer, 1, answer.length - 1);
        assertThat(b.getLong()).isEqualTo(id);
        assertThat(b.get()).isEqualTo(Frames.OK);
        return b.getLong();
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited too long").isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
