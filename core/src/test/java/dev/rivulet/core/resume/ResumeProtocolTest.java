package dev.rivulet.core.resume;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.RivuletServer.BoundServer;
import dev.rivulet.testing.NoLeaks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;

/** What the session protocol refuses and bounds, seen from inside: forged tokens, the replay window. */
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

    private static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited too long").isLessThan(deadline);
            Thread.sleep(5);
        }
    }
}
