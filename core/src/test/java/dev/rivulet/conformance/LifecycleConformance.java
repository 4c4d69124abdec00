package dev.rivulet.conformance;

import dev.rivulet.core.CloseReason;
import dev.rivulet.core.Completion;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.util.retry.Retry;

import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The part of the contract a Reactor user meets first: receive() under ordinary operators (nothing they drop may
 * leak, nothing kept without {@code retain()} may be read after its release), graceful and immediate shutdown with
 * the reason a close had, what a completion means, and the conveniences that spare users buffer handling.
 */
public abstract class LifecycleConformance extends LentBufferConformance {

    // ------------------------------------------------------------------------------------------ receive and operators

    @Test
    void buffersThatFilterAndDistinctDropGoBackToThePool() {
        long n = 600;
        Mono<Long> kept = server().receive()
                .take(n)
                .filter(b -> Messages.seq(b) % 3 == 0)
                .distinct(b -> Messages.seq(b) % 100)
                .count();
        StepVerifier.create(kept.zipWith(client().send(sequence(client(), n, 48)).thenReturn(1), (c, x) -> c))
                .expectNext(100L) // 200 multiples of 3 below 600, whose residues mod 100 are all 100 values
                .verifyComplete();
    }

    @Test
    void takeAndTimeoutEndTheSubscriptionAndLeaveNothingBehind() {
        // take: the subscriber leaves after 10; what was credited meanwhile waits for the next one, in order
        Disposable sending = client().send(sequence(client(), 100, 32)).subscribe(null, e -> { });
        StepVerifier.create(server().receive().take(10).map(Messages::seq))
                .expectNext(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L).verifyComplete();
        StepVerifier.create(server().receive().take(90).map(Messages::seq).last()).expectNext(99L).verifyComplete();
        sending.dispose();
        // timeout: five messages, then silence ends the stream with the timeout's error. The five may be slow to
        // come on a busy machine: only the silence after the fifth is timed short.
        AtomicLong seen = new AtomicLong();
        StepVerifier.create(server().receive().doOnNext(b -> seen.incrementAndGet())
                        .timeout(Mono.delay(TIMEOUT),
                                b -> Mono.delay(seen.get() < 5 ? TIMEOUT : Duration.ofMillis(300)))
                        .doOnSubscribe(s -> client().send(sequence(client(), 5, 32)).subscribe()))
                .expectNextCount(5)
                .expectError(TimeoutException.class)
                .verify(TIMEOUT);
        assertThat(seen).hasValue(5);
    }

    @Test
    void anErrorMidStreamLeavesNoBufferBehind() {
        Flux<Long> failing = server().receive().map(b -> {
            long s = Messages.seq(b);
            if (s == 50) {
                throw new IllegalStateException("a bug in the consumer");
            }
            return s;
        });
        Disposable sending = client().send(sequence(client(), 200, 32)).subscribe(null, e -> { });
        StepVerifier.create(failing).expectNextCount(50).expectError(IllegalStateException.class).verify(TIMEOUT);
        // the messages that were credited but not delivered wait for the next subscriber, in order
        StepVerifier.create(server().receive().take(149).map(Messages::seq).reduce((a, b) -> {
            assertThat(b).isEqualTo(a + 1);
            return b;
        })).expectNext(199L).verifyComplete();
        sending.dispose();
    }

    @Test
    void retainedBuffersCrossPublishOnAndACancelledQueueReleasesThem() {
        Scheduler slow = Schedulers.newSingle("slow-consumer");
        try {
            Disposable sending = client().send(sequence(client(), Long.MAX_VALUE, 64)).subscribe(null, e -> { });
            List<Long> got = server().receive()
                    .retain()
                    .publishOn(slow, 64)
                    .map(b -> {
                        try {
                            LockSupport.parkNanos(200_000);
                            return Messages.seq(b); // read on another thread: only possible because retained
                        } finally {
                            b.release();
                        }
                    })
                    .take(100)
                    .doOnDiscard(Buffer.class, Buffer::release) // what the cancelled publishOn queue still holds
                    .collectList()
                    .block(TIMEOUT);
            assertThat(got).hasSize(100);
            for (int i = 1; i < got.size(); i++) {
                assertThat(got.get(i)).isEqualTo(got.get(i - 1) + 1);
            }
            sending.dispose();
        } finally {
            slow.dispose();
        }
    }

    @Test
    void limitRateAndWindowTimeoutWorkOnRetainedBuffers() {
        Disposable sending = client().send(sequence(client(), Long.MAX_VALUE, 64)).subscribe(null, e -> { });
        List<Long> windowSizes = server().receive()
                .retain()
                .limitRate(8)
                .windowTimeout(16, Duration.ofMillis(50))
                .concatMap(w -> w.map(b -> {
                    try {
                        return Messages.seq(b);
                    } finally {
                        b.release();
                    }
                }).count())
                .filter(c -> c > 0)
                .take(10)
                .doOnDiscard(Buffer.class, Buffer::release)
                .collectList()
                .block(TIMEOUT);
        assertThat(windowSizes).hasSize(10).allMatch(c -> c <= 16);
        sending.dispose();
    }

    @Test
    void aBufferUsedAfterOnNextWithoutRetainFailsInsteadOfReadingAnotherMessage() {
        Disposable sending = client().send(sequence(client(), 50, 64)).subscribe(null, e -> { });
        AtomicLong lent = new AtomicLong();
        StepVerifier.create(server().receive()
                        .doOnNext(b -> lent.incrementAndGet())
                        .publishOn(Schedulers.boundedElastic()) // no retain(): each buffer is gone once onNext returned
                        .map(b -> {
                            // Once all 50 were lent, no receive hands a released buffer out again, so the late reader
                            // must meet the release (a moment later at most) rather than another message.
                            awaitTrue(() -> lent.get() == 50, "all messages lent");
                            long deadline = System.nanoTime() + TIMEOUT.toNanos();
                            while (System.nanoTime() < deadline) {
                                Messages.seq(b);
                                LockSupport.parkNanos(100_000);
                            }
                            return -1L;
                        }))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(InvalidMemoryException.class)
                        .hasMessageContaining("released"))
                .verify(TIMEOUT);
        sending.dispose();
    }

    @Test
    void bytesAndStringsNeedNoBufferHandlingAndSendsOfThemCanBeRetried() {
        StepVerifier.create(server().receive().asString().take(3).collectList()
                        .zipWith(client().send("one").then(client().send("two".getBytes()))
                                .then(client().send(java.nio.ByteBuffer.wrap("three".getBytes())))
                                .thenReturn(1), (l, x) -> l))
                .expectNext(List.of("one", "two", "three")).verifyComplete();
        StepVerifier.create(server().receive().asByteArray().take(2).map(String::new).collectList()
                        .zipWith(client().sendString(Flux.just("a", "b")).thenReturn(1), (l, x) -> l))
                .expectNext(List.of("a", "b")).verifyComplete();
        // send(byte[]) allocates per subscription: subscribing twice sends twice
        Mono<Void> twice = client().send("again");
        StepVerifier.create(server().receive().asString().take(2).collectList()
                        .zipWith(twice.then(twice).thenReturn(1), (l, x) -> l))
                .expectNext(List.of("again", "again")).verifyComplete();
        // send(Buffer) cannot: its buffer went with the first subscription; the error says so and is not retryable
        Mono<Void> once = client().send(client().memory().allocate(4).write("once".getBytes()));
        StepVerifier.create(server().receive().asString().next().zipWith(once.thenReturn(1), (m, x) -> m))
                .expectNext("once").verifyComplete();
        StepVerifier.create(once.retryWhen(Retry.max(3).filter(e -> e instanceof TransportException t
                        && t.isRetryable())))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(InvalidRequestException.class)
                        .hasMessageContaining("Mono.defer"))
                .verify(TIMEOUT);
    }

    // ------------------------------------------------------------------------------------------ shutdown

    @Test
    void aGracefulCloseLetsIssuedOperationsFinishAndRefusesNewOnes() {
        // Ten sends park: nobody receives yet, so there are no credits.
        List<Mono<Void>> sends = new ArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        AtomicLong completed = new AtomicLong();
        for (int i = 0; i < 10; i++) {
            client().send(Messages.make(client().memory(), i, 32))
                    .subscribe(null, failures::add, completed::incrementAndGet);
        }
        awaitTrue(() -> client().stats().block(TIMEOUT).pendingOperations() == 10, "sends parked");
        AtomicBoolean closed = new AtomicBoolean();
        client().closeGracefully(TIMEOUT).subscribe(null, null, () -> closed.set(true));
        StepVerifier.create(client().send(Messages.make(client().memory(), 99, 32)))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(ResourceClosedException.class)
                        .hasMessageContaining("closing"))
                .verify(TIMEOUT);
        assertThat(closed).isFalse();
        // The receiver shows up: the ten go through, then the client closes and the server's receive completes.
        StepVerifier.create(server().receive().map(Messages::seq))
                .expectNext(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L)
                .expectComplete()
                .verify(TIMEOUT);
        awaitTrue(closed::get, "graceful close done");
        assertThat(completed).hasValue(10);
        assertThat(failures).isEmpty();
        StepVerifier.create(client().closeReason()).assertNext(r -> {
            assertThat(r.kind()).isEqualTo(CloseReason.Kind.LOCAL);
            assertThat(r.isClean()).isTrue();
        }).verifyComplete();
        StepVerifier.create(server().closeReason().map(CloseReason::kind)).expectNext(CloseReason.Kind.PEER)
                .verifyComplete();
    }

    @Test
    void aGracefulCloseThatRunsOutOfTimeFailsWhatIsLeft() {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        client().send(Messages.make(client().memory(), 1, 32)).subscribe(null, failure::set);
        awaitTrue(() -> client().stats().block(TIMEOUT).pendingOperations() == 1, "send parked");
        StepVerifier.create(client().closeGracefully(Duration.ofMillis(200))).verifyComplete();
        assertThat(failure.get()).isInstanceOf(ResourceClosedException.class).hasMessageContaining("timed out");
        assertThat(client().isDisposed()).isTrue();
    }

    @Test
    void disposeFailsPendingOperationsAtOnceAndSaysSo() {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        client().send(Messages.make(client().memory(), 1, 32)).subscribe(null, failure::set);
        awaitTrue(() -> client().stats().block(TIMEOUT).pendingOperations() == 1, "send parked");
        client().dispose();
        StepVerifier.create(client().closeReason().map(CloseReason::kind)).expectNext(CloseReason.Kind.LOCAL)
                .verifyComplete();
        assertThat(failure.get()).isInstanceOf(ResourceClosedException.class);
    }

    @Test
    void disposingATransportFromItsOwnPollingThreadDoesNotBlockIt() {
        AtomicBoolean returned = new AtomicBoolean();
        AtomicBoolean disposedBeforeReturn = new AtomicBoolean();
        Disposable rx = server().receive().next().doOnNext(b -> {
            pair.serverTransport().dispose(); // on the server's polling thread: only starts the close
            disposedBeforeReturn.set(pair.serverTransport().onDispose().toFuture().isDone());
            returned.set(true);
        }).subscribe();
        client().send("x").subscribe(null, e -> { });
        StepVerifier.create(pair.serverTransport().onDispose()).verifyComplete();
        assertThat(returned).isTrue();
        assertThat(disposedBeforeReturn).as("the close finished after the polling thread went on").isFalse();
        StepVerifier.create(client().onClose()).verifyComplete();
        rx.dispose();
    }

    @Test
    void aTransportDisposedGracefullyFinishesEveryEndpointsWork() {
        long n = 500;
        Disposable sending = client().send(sequence(client(), n, 64)).subscribe(null, e -> { });
        AtomicLong got = new AtomicLong(-1);
        server().receive().count().subscribe(got::set, e -> got.set(-2));
        awaitTrue(() -> client().stats().block(TIMEOUT).messagesSent() > 0, "stream started");
        StepVerifier.create(pair.clientTransport().disposeGracefully(TIMEOUT)).verifyComplete();
        assertThat(pair.clientTransport().isDisposed()).isTrue();
        awaitTrue(() -> got.get() != -1, "the receiver saw the graceful close");
        assertThat(got).as("messages that arrived before the close").hasValue(n);
        sending.dispose();
    }

    // ------------------------------------------------------------------------------------------ completion meaning

    @Test
    void aCompletedPutIsAtTheTargetWhereTheTransportSaysSoAndAFlushMakesItSoEverywhere() {
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion target = server().memory().register(arena.allocate(4096, 64), GRANTABLE);
            RemoteMemory remote = exposeOnServer(target);
            MemoryRegion local = client().memory().register(arena.allocate(4096, 64));
            for (int i = 1; i <= 50; i++) {
                local.segment().fill((byte) i);
                client().put(local.slice(0, 4096), remote).block(TIMEOUT);
                if (caps().putCompletion() == Completion.REMOTE) {
                    assertThat(target.segment().get(ValueLayout.JAVA_BYTE, 4095)).as("put %d", i).isEqualTo((byte) i);
                }
            }
            client().flush().block(TIMEOUT);
            assertThat(target.segment().get(ValueLayout.JAVA_BYTE, 0)).isEqualTo((byte) 50);
            target.close();
            local.close();
        }
    }
}
