package dev.rivulet.core.interaction;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.error.RemoteApplicationException;
import dev.rivulet.core.error.RequestRejectedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.LeakDetector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.reactivestreams.Subscription;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The four interaction models over the in-JVM transport, as an application uses them. */
class InteractionsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final AtomicInteger NAMES = new AtomicInteger();

    private Transport transport;
    private RivuletServer.BoundServer server;
    private Endpoint clientEndpoint;
    private Requester client;
    /** The server side's requester of the latest connection, for requests the other way. */
    private final Sinks.One<Requester> serverSide = Sinks.one();
    private final AtomicLong produced = new AtomicLong();
    private final AtomicLong requestedAtResponder = new AtomicLong();
    private final CountDownLatch responderCancelled = new CountDownLatch(1);
    private final ConcurrentLinkedQueue<String> fired = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<Payload> retainedRequests = new ConcurrentLinkedQueue<>();

    @BeforeEach
    void open() {
        LeakDetector.enable();
        LeakDetector.reset();
        transport = Transports.open("local", TransportConfig.defaults());
        Router router = Router.builder()
                .requestResponse("echo", p -> Mono.just(Payload.of(p.dataUtf8()).metadata(p.metadata())))
                .requestResponse("fail", p -> Mono.error(new IllegalStateException("no such key: " + p.dataUtf8())))
                .requestResponse("coded", p -> Mono.error(new RemoteApplicationException("gone: " + p.dataUtf8(),
                        RemoteApplicationException.MIN_CODE + 404)))
                .requestResponse("empty", p -> Mono.empty())
                .requestResponse("bytes", p -> Mono.just(Payload.of(p.dataBytes())))
                .requestResponse("never", p -> Mono.<Payload>never().doOnCancel(responderCancelled::countDown))
                .requestResponse("late", p -> Mono.delay(Duration.ofMillis(50)).map(x -> Payload.of(p.dataUtf8())))
                .requestResponse("elsewhere", p -> Mono.fromCallable(() -> Payload.of(p.dataUtf8()))
                        .subscribeOn(Schedulers.parallel()))
                .requestResponse("keep", p -> {
                    retainedRequests.add(p.retain());
                    return Mono.fromCallable(() -> Payload.of(p.dataUtf8())).subscribeOn(Schedulers.parallel());
                })
                .requestStream("count", p -> Flux.range(0, Integer.parseInt(p.dataUtf8()))
                        .doOnRequest(requestedAtResponder::addAndGet)
                        .doOnNext(i -> produced.incrementAndGet())
                        .doOnCancel(responderCancelled::countDown)
                        .map(i -> Payload.of(Integer.toString(i))))
                .requestChannel("upper", (first, rest) -> Flux.concat(Mono.just(first.dataUtf8()),
                                rest.map(Payload::dataUtf8))
                        .map(s -> Payload.of(s.toUpperCase())))
                .fireAndForget("log", p -> {
                    fired.add(p.dataUtf8());
                    return Mono.empty();
                })
                .build();
        server = RivuletServer.create().runOn(transport).bindAddress("local://interactions-" + NAMES.incrementAndGet())
                .handle(peer -> {
                    Requester back = Interactions.server(peer, router);
                    serverSide.tryEmitValue(back);
                    return back.onClose();
                })
                .bindNow();
        clientEndpoint = RivuletClient.create().runOn(transport).remoteAddress(server.address()).connectNow();
        client = Interactions.client(clientEndpoint, Router.builder()
                .requestResponse("whoami", p -> Mono.just(Payload.of("client")))
                .build());
    }

    @AfterEach
    void close() {
        try {
            client.dispose();
            server.disposeNow(TIMEOUT);
            transport.dispose();
            LeakDetector.awaitNoLeaks(TIMEOUT);
        } finally {
            LeakDetector.disable();
        }
    }

    @Test
    void requestResponseCarriesDataAndMetadataBothWays() {
        Metadata m = Metadata.builder().route("echo").contentType("text/plain").header("traceparent", "00-abc-01")
                .application(new byte[] {1, 2, 3}).build();
        StepVerifier.create(client.requestResponse(Payload.of("héllo").metadata(m))
                        .map(p -> p.dataUtf8() + "|" + p.metadata()))
                .expectNext("héllo|" + m)
                .verifyComplete();
    }

    @Test
    void aSubscriptionKeptPastItsAnswerReachesNoLaterRequest() {
        AtomicReference<Subscription> answered = new AtomicReference<>();
        StepVerifier.create(client.requestResponse(Payload.of("a").route("echo")).doOnSubscribe(answered::set)
                        .map(Payload::dataUtf8))
                .expectNext("a").verifyComplete();
        // The next request-response takes up the record the first one left: the first's subscription, cancelled or
        // asked for more while the next one waits for its answer, must not touch it.
        StepVerifier.create(client.requestResponse(Payload.of("b").route("late")).doOnSubscribe(s -> {
                            answered.get().cancel();
                            answered.get().request(1);
                        })
                        .map(Payload::dataUtf8))
                .expectNext("b").expectComplete().verify(TIMEOUT);
    }

    @Test
    void anEmptyAnswerCompletesEmpty() {
        StepVerifier.create(client.requestResponse(Payload.of("x").route("empty"))).verifyComplete();
    }

    @Test
    void aFailingHandlerFailsItsRequestOnly() {
        Mono<String> ok = client.requestResponse(Payload.of("a").route("late")).map(Payload::dataUtf8);
        Mono<String> failing = client.requestResponse(Payload.of("k").route("fail")).map(Payload::dataUtf8);
        StepVerifier.create(Flux.merge(ok, failing.onErrorResume(e -> Mono.just(e.getClass().getSimpleName()
                        + ": " + e.getMessage()))).collectList())
                .assertNext(list -> assertThat(list).containsExactlyInAnyOrder("a",
                        "RemoteApplicationException: no such key: k"))
                .verifyComplete();
        StepVerifier.create(client.requestResponse(Payload.of("again").route("echo")).map(Payload::dataUtf8))
                .expectNext("again").verifyComplete();
    }

    @Test
    void anApplicationErrorCodeTravelsToTheRequester() {
        StepVerifier.create(client.requestResponse(Payload.of("k").route("coded")))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(RemoteApplicationException.class)
                        .hasMessage("gone: k")
                        .extracting(x -> ((RemoteApplicationException) x).code())
                        .isEqualTo(RemoteApplicationException.MIN_CODE + 404))
                .verify(Duration.ofSeconds(20));
        StepVerifier.create(client.requestResponse(Payload.of("k").route("fail")))
                .expectErrorSatisfies(e -> assertThat(((RemoteApplicationException) e).code()).isZero())
                .verify(Duration.ofSeconds(20));
        assertThatThrownBy(() -> new RemoteApplicationException("protocol's own", 4))
                .isInstanceOf(dev.rivulet.core.error.InvalidRequestException.class);
    }

    @Test
    void anUnknownRouteIsRejectedAndNotRetryable() {
        StepVerifier.create(client.requestResponse(Payload.of("x").route("nowhere")))
                .expectErrorSatisfies(e -> {
                    assertThat(e).isInstanceOf(RequestRejectedException.class).hasMessageContaining("nowhere");
                    assertThat(((TransportException) e).isRetryable()).isFalse();
                })
                .verify(TIMEOUT);
        StepVerifier.create(client.requestStream(Payload.of("x").route("echo")))
                .expectError(RequestRejectedException.class).verify(TIMEOUT);
    }

    @Test
    void aStreamProducesOnlyWhatItsSubscriberAsked() {
        StepVerifier.create(client.requestStream(Payload.of("1000").route("count")).map(Payload::dataUtf8), 0)
                .thenRequest(5)
                .expectNext("0", "1", "2", "3", "4")
                .then(() -> assertThat(requestedAtResponder.get()).isEqualTo(5))
                .thenRequest(3)
                .expectNext("5", "6", "7")
                .thenCancel()
                .verify(TIMEOUT);
        assertThat(await(responderCancelled)).isTrue();
        assertThat(produced.get()).isEqualTo(8);
        assertThat(requestedAtResponder.get()).isEqualTo(8);
    }

    @Test
    void aStalledStreamDoesNotSlowAnother() {
        StepVerifier.Step<String> stalled = StepVerifier.create(
                        client.requestStream(Payload.of("1000000").route("count")).map(Payload::dataUtf8), 1)
                .expectNext("0");
        long n = client.requestStream(Payload.of("20000").route("count")).count().block(TIMEOUT);
        assertThat(n).isEqualTo(20_000);
        stalled.thenCancel().verify(TIMEOUT);
    }

    @Test
    void cancellingOrTimingOutARequestCancelsItAtTheResponder() {
        StepVerifier.create(client.requestResponse(Payload.of("x").route("never")).timeout(Duration.ofMillis(100)))
                .expectError(java.util.concurrent.TimeoutException.class)
                .verify(TIMEOUT);
        assertThat(await(responderCancelled)).isTrue();
    }

    @Test
    void aChannelCarriesEachWayUnderCredits() {
        Flux<Payload> requests = Flux.range(0, 5000).map(i -> Payload.of("m" + i).route("upper"));
        StepVerifier.create(client.requestChannel(requests).map(Payload::dataUtf8).limitRate(16))
                .expectNextSequence(java.util.stream.IntStream.range(0, 5000).mapToObj(i -> "M" + i).toList())
                .verifyComplete();
    }

    @Test
    void aChannelWhosePublisherIsEmptyCompletesWithoutOpening() {
        StepVerifier.create(client.requestChannel(Flux.empty())).verifyComplete();
    }

    @Test
    void fireAndForgetReachesTheResponder() {
        StepVerifier.create(client.fireAndForget(Payload.of("event").route("log"))).verifyComplete();
        StepVerifier.create(client.requestResponse(Payload.of("sync").route("echo"))).expectNextCount(1)
                .verifyComplete();
        assertThat(fired).containsExactly("event");
    }

    @Test
    void bothSidesRequestAtOnce() {
        Requester back = serverSide.asMono().block(TIMEOUT);
        StepVerifier.create(Flux.merge(
                        back.requestResponse(Payload.of("?").route("whoami")).map(Payload::dataUtf8),
                        client.requestResponse(Payload.of("server").route("echo")).map(Payload::dataUtf8))
                        .collectList())
                .assertNext(l -> assertThat(l).containsExactlyInAnyOrder("client", "server"))
                .verifyComplete();
    }

    @Test
    void aHundredThousandRequestsOnOneConnection() {
        assertThat(answeredRightly(100_000, 256, i -> ownAnswer(i, "echo"))).isEqualTo(100_000);
    }

    @Test
    void answersThatEndLaterEachReachTheirOwnRequest() {
        // Answers subscribed by the responder end on other threads, and their records answer later requests; some
        // requests are cancelled while their answers are under way, whose records must never answer another.
        assertThat(answeredRightly(20_000, 128, i -> i % 7 == 0
                ? ownAnswer(i, "elsewhere").timeout(Duration.ZERO, Mono.just(true))
                : ownAnswer(i, "elsewhere"))).isEqualTo(20_000);
    }

    @Test
    void aRequestTheHandlerRetainedStaysItsOwnWhileLaterRequestsArrive() {
        // Requests answered later than their handler's call are held by the session, whose payload objects are lent
        // again once their answer is over, unless the handler retained the payload: every fourth one here.
        int n = 3 * LentPayloads.SIZE;
        assertThat(answeredRightly(n, 64, i -> ownAnswer(i, i % 4 == 0 ? "keep" : "elsewhere"))).isEqualTo(n);
        assertThat(retainedRequests).hasSize(n / 4);
        assertThat(retainedRequests.stream().map(p -> Integer.parseInt(p.dataUtf8()) % 4).distinct().toList())
                .containsExactly(0);
        assertThat(retainedRequests.stream().map(Payload::dataUtf8).distinct().count())
                .isEqualTo(n / 4);
        retainedRequests.forEach(Payload::release);
    }

    /** Whether request-response {@code i} on {@code route} is answered with its own number. */
    private Mono<Boolean> ownAnswer(int i, String route) {
        return client.requestResponse(Payload.of(Integer.toString(i)).route(route))
                .map(p -> Integer.parseInt(p.dataUtf8()) == i);
    }

    /** How many of {@code count} checks, {@code concurrency} at a time, came out true. */
    private static long answeredRightly(int count, int concurrency, IntFunction<Mono<Boolean>> check) {
        return Flux.range(0, count).flatMap(check::apply, concurrency).filter(b -> b).count()
                .block(Duration.ofSeconds(120));
    }

    @Test
    void payloadsLargerThanAFrameTravelInFragments() {
        int size = 3 * FrameWriter.MAX_FRAGMENT + 12_345;
        byte[] data = new byte[size];
        for (int i = 0; i < size; i++) {
            data[i] = (byte) (i * 7 + i / 8191);
        }
        String text = new String(data, java.nio.charset.StandardCharsets.ISO_8859_1);
        StepVerifier.create(client.requestResponse(Payload.of(text.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1))
                                .route("bytes"))
                        .map(p -> java.util.Arrays.equals(p.dataBytes(), data)))
                .expectNext(true)
                .verifyComplete();
        StepVerifier.create(client.requestResponse(Payload.of("fine").route("echo")).map(Payload::dataUtf8))
                .expectNext("fine").verifyComplete();
    }

    @Test
    void aPayloadBeyondWhatTheResponderHoldsFailsItsRequestOnly() {
        try (InteractionSessions s = new InteractionSessions(peer -> Interactions.server(peer,
                Router.builder().requestResponse("echo", p -> Mono.just(Payload.of(p.dataBytes()))).build(),
                InteractionOptions.defaults().maxPayloadSize(FrameWriter.MAX_FRAGMENT + 100)))) {
            Requester small = Interactions.client(s.clientEndpoint);
            StepVerifier.create(small.requestResponse(Payload.of(new byte[2 * FrameWriter.MAX_FRAGMENT]).route("echo")))
                    .expectError(dev.rivulet.core.error.InvalidRequestException.class).verify(TIMEOUT);
            StepVerifier.create(small.requestResponse(Payload.of("fine").route("echo")).map(Payload::dataUtf8))
                    .expectNext("fine").verifyComplete();
        }
    }

    @Test
    void theEndOfTheConnectionEndsEveryOpenRequest() {
        StepVerifier.create(client.requestStream(Payload.of("1000000").route("count")), 1)
                .expectNextCount(1)
                .then(clientEndpoint::dispose)
                .expectError(TransportException.class)
                .verify(TIMEOUT);
        StepVerifier.create(client.requestResponse(Payload.of("late").route("echo")))
                .expectError(TransportException.class).verify(TIMEOUT);
        StepVerifier.create(client.onClose()).verifyComplete();
    }

    @Test
    void aReceivedPayloadIsLentForItsOnNext() {
        List<Payload> kept = client.requestStream(Payload.of("3").route("count")).collectList().block(TIMEOUT);
        assertThat(kept).hasSize(3);
        for (Payload p : kept) {
            org.assertj.core.api.Assertions.assertThatThrownBy(p::dataUtf8)
                    .isInstanceOf(dev.rivulet.core.error.InvalidMemoryException.class);
        }
        List<String> retained = client.requestStream(Payload.of("3").route("count")).map(Payload::retain)
                .collectList().block(TIMEOUT).stream().map(p -> {
                    String s = p.dataUtf8();
                    p.release();
                    return s;
                }).toList();
        assertThat(retained).containsExactly("0", "1", "2");
    }

    private static boolean await(CountDownLatch latch) {
        try {
            return latch.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
