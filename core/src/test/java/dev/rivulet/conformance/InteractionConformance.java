package dev.rivulet.conformance;

import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.error.RemoteApplicationException;
import dev.rivulet.core.interaction.Interactions;
import dev.rivulet.core.interaction.Metadata;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.interaction.Requester;
import dev.rivulet.core.interaction.Router;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryDomain;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The interaction models ({@link Interactions}) over the transport under test: every model, cancellation at every
 * stage (nothing leaks, the connection's credits come back, the next request works), many requests on one
 * connection, and a stalled stream beside a busy one.
 */
public abstract class InteractionConformance extends AbandonedOperationConformance {

    private Requester requester;
    private final AtomicLong produced = new AtomicLong();
    private final CountDownLatch cancelled = new CountDownLatch(1);

    /** Turns the pair into an interaction session (only in these tests: the session takes over receive()). */
    private Requester requester() {
        if (requester != null) {
            return requester;
        }
        Router router = Router.builder()
                .requestResponse("echo", p -> Mono.just(copyOf(p)))
                .requestResponse("never", p -> Mono.<Payload>never().doOnCancel(cancelled::countDown))
                .requestResponse("fail", p -> Mono.error(new IllegalArgumentException("bad " + p.dataUtf8())))
                .requestStream("count", p -> Flux.range(0, Integer.parseInt(p.dataUtf8()))
                        .doOnNext(i -> produced.incrementAndGet())
                        .doOnCancel(cancelled::countDown)
                        .map(i -> Payload.of(Integer.toString(i))))
                .requestChannel("sum", (first, rest) -> rest.map(p -> Long.parseLong(p.dataUtf8()))
                        .reduce(Long.parseLong(first.dataUtf8()), Long::sum)
                        .map(s -> Payload.of(Long.toString(s)))
                        .flux())
                .requestChannel("echo", (first, rest) -> Flux.concat(Mono.just(copyOf(first)), rest.map(
                        InteractionConformance::copyOf)))
                .fireAndForget("sink", p -> Mono.empty())
                .requestResponse("echoBuffer", p -> Mono.just(Payload.of(copyInto(server().memory(), p))))
                .requestStream("buffers", p -> Flux.range(0, 50)
                        .map(i -> Payload.of(patterned(server().memory(), Integer.parseInt(p.dataUtf8()), i))))
                .build();
        Interactions.server(server(), router);
        requester = Interactions.client(client());
        return requester;
    }

    @AfterEach
    void forgetSessions() {
        requester = null;
    }

    /** A payload with the bytes and metadata of {@code p}, outliving it (copied into the heap). */
    private static Payload copyOf(Payload p) {
        return Payload.of(p.dataBytes()).metadata(p.metadata());
    }

    /** A registered buffer of {@code memory} holding {@code p}'s data. */
    private static Buffer copyInto(MemoryDomain memory, Payload p) {
        Buffer b = memory.allocate(p.dataLength()).length(p.dataLength());
        MemorySegment.copy(p.data(), 0, b.segment(), 0, p.dataLength());
        return b;
    }

    /** A registered buffer of {@code size} bytes of a pattern that differs with {@code seed}. */
    private static Buffer patterned(MemoryDomain memory, int size, int seed) {
        Buffer b = memory.allocate(size).length(size);
        MemorySegment s = b.segment();
        for (int i = 0; i < size; i++) {
            s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
        return b;
    }

    private static boolean hasPattern(Payload p, int size, int seed) {
        if (p.dataLength() != size) {
            return false;
        }
        MemorySegment s = p.data();
        for (int i = 0; i < size; i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != (byte) (i * 31 + seed)) {
                return false;
            }
        }
        return true;
    }

    private int largest() {
        return (int) Math.min(256 * 1024, caps().maxMessageSize() - 1024);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 64, 4096, -1})
    void requestResponseReturnsTheBytesAndMetadata(int size) {
        int n = size < 0 ? largest() : size;
        byte[] data = new byte[n];
        for (int i = 0; i < n; i++) {
            data[i] = (byte) (i * 31 + 7);
        }
        Metadata m = Metadata.builder().route("echo").contentType("application/octet-stream").header("k", "v").build();
        StepVerifier.create(requester().requestResponse(Payload.of(data).metadata(m))
                        .map(p -> {
                            assertThat(p.metadata()).isEqualTo(m);
                            return MemorySegment.mismatch(p.data(), 0, p.dataLength(), MemorySegment.ofArray(data), 0,
                                    n) == -1;
                        }))
                .expectNext(true)
                .verifyComplete();
    }

    /**
     * Payloads built from registered buffers travel behind their frame headers as buffers of their own (copied once,
     * by the wire, where it gathers; joined just before posting where it does not): their bytes arrive intact both
     * ways at every size, in order on a stream, and every buffer goes back to its pool (the leak check after each
     * test).
     */
    @ParameterizedTest
    @ValueSource(ints = {1024, 4096, 65536, -1})
    void payloadsOfRegisteredBuffersArriveIntactBothWays(int size) {
        int n = size < 0 ? largest() : size;
        StepVerifier.create(requester().requestResponse(Payload.of(patterned(client().memory(), n, 7)).route("echoBuffer"))
                        .map(p -> hasPattern(p, n, 7)))
                .expectNext(true)
                .verifyComplete();
        StepVerifier.create(requester().requestStream(Payload.of(Integer.toString(n)).route("buffers"))
                        .index()
                        .map(t -> hasPattern(t.getT2(), n, t.getT1().intValue())))
                .expectNextSequence(java.util.Collections.nCopies(50, true))
                .verifyComplete();
    }

    @Test
    void everyModelWorksOnOneConnection() {
        StepVerifier.create(requester().fireAndForget(Payload.of("x").route("sink"))).verifyComplete();
        StepVerifier.create(requester().requestStream(Payload.of("100").route("count")).map(Payload::dataUtf8)
                        .collectList())
                .assertNext(l -> assertThat(l).containsExactlyElementsOf(
                        IntStream.range(0, 100).mapToObj(Integer::toString).toList()))
                .verifyComplete();
        StepVerifier.create(requester().requestChannel(Flux.range(1, 1000).map(i -> Payload.of(Long.toString(i))
                                .route("sum")))
                        .map(Payload::dataUtf8))
                .expectNext("500500")
                .verifyComplete();
        StepVerifier.create(requester().requestResponse(Payload.of("q").route("fail")))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(RemoteApplicationException.class)
                        .hasMessageContaining("bad q"))
                .verify(TIMEOUT);
    }

    @Test
    void cancellationAtEveryStageLeaksNothingAndKeepsCredits() {
        StepVerifier.create(requester().requestResponse(Payload.of("warm").route("echo"))).expectNextCount(1)
                .verifyComplete();
        awaitTrue(() -> settled(client().stats().block(TIMEOUT)), "the client's first sends to settle");
        long credits = client().stats().block(TIMEOUT).sendCredits();
        // before the first demand: nothing was sent
        StepVerifier.create(requester().requestStream(Payload.of("10").route("count")), 0).thenCancel().verify(TIMEOUT);
        // mid-stream: the responder stops
        StepVerifier.create(requester().requestStream(Payload.of("1000000").route("count")), 3)
                .expectNextCount(3)
                .thenCancel()
                .verify(TIMEOUT);
        awaitLatch(cancelled);
        // a request-response abandoned by timeout
        StepVerifier.create(requester().requestResponse(Payload.of("x").route("never")).timeout(Duration.ofMillis(50)))
                .expectError(java.util.concurrent.TimeoutException.class)
                .verify(TIMEOUT);
        // a channel cancelled while both directions run
        StepVerifier.create(requester().requestChannel(Flux.range(0, 1_000_000).map(i -> Payload.of("p" + i)
                                .route("echo"))), 10)
                .expectNextCount(10)
                .thenCancel()
                .verify(TIMEOUT);
        // the connection carries on, at full credit
        StepVerifier.create(requester().requestResponse(Payload.of("after").route("echo")).map(Payload::dataUtf8))
                .expectNext("after")
                .verifyComplete();
        // Credits come back in batches: what the client may still send is exactly what the server holds posted
        // for it, and at least three quarters of a window, as before the abandoned streams.
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        EndpointStats c = client().stats().block(TIMEOUT);
        EndpointStats srv = server().stats().block(TIMEOUT);
        while (!(settled(c) && c.sendCredits() == srv.receivesPosted() && c.sendCredits() >= credits * 3 / 4)
                && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000);
            c = client().stats().block(TIMEOUT);
            srv = server().stats().block(TIMEOUT);
        }
        assertThat(settled(c)).as("nothing pending or in flight: %s", c).isTrue();
        assertThat(c.sendCredits()).as("the client's credits (%s) against the server's posted receives (%s)", c, srv)
                .isEqualTo(srv.receivesPosted())
                .isGreaterThanOrEqualTo(credits * 3 / 4);
    }

    private static boolean settled(EndpointStats s) {
        return s.sendsInFlight() == 0 && s.pendingOperations() == 0;
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES) // as long as its block(): slow providers on a loaded machine
    void manyRequestsOnOneConnection() {
        long ok = Flux.range(0, 100_000)
                .flatMap(i -> requester().requestResponse(Payload.of(Integer.toString(i)).route("echo"))
                        .map(p -> Integer.parseInt(p.dataUtf8()) == i), 256)
                .filter(b -> b)
                .count()
                .block(Duration.ofMinutes(3));
        assertThat(ok).isEqualTo(100_000);
    }

    @Test
    void aStalledStreamDoesNotSlowAnother() {
        StepVerifier.Step<Payload> stalled = StepVerifier.create(
                requester().requestStream(Payload.of("1000000").route("count")), 1).expectNextCount(1);
        assertThat(requester().requestStream(Payload.of("20000").route("count")).count().block(TIMEOUT))
                .isEqualTo(20_000);
        stalled.thenCancel().verify(TIMEOUT);
        assertThat(produced.get()).isLessThan(20_000 + 1_000);
    }

    private static void awaitLatch(CountDownLatch latch) {
        try {
            assertThat(latch.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }
}
