package dev.rivulet.conformance;

import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.Operation;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.InvalidMemoryException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.MessageTooLargeException;
import dev.rivulet.core.error.OperationNotSupportedException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RegisteredSlice;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.memory.RemoteWrite;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The contract every Rivulet transport passes unchanged. A backend's test extends this class and says how to open
 * its transport and what address to bind; everything else here is transport-neutral. The tests are spread over the
 * class and its parents ({@link StreamingGetConformance}: streamed gets, and puts and gets longer than the transport's
 * largest going in pieces; {@link GrantHandleConformance}: what a grant's handle names; {@link ClaimedSendConformance}:
 * sends written in place; {@link LifecycleConformance}:
 * receive under Reactor operators, shutdown, completion meanings; {@link LoopFaultConformance}: what a
 * {@code Throwable} on a progress loop ends); the harness is {@link ConformanceBase}.
 *
 * <p>Every test runs with paranoid leak detection on and fails if a buffer is left unreleased after both endpoints
 * closed.
 */
public abstract class TransportConformanceKit extends StreamingGetConformance {

    // ------------------------------------------------------------------------------------------ messaging

    @Test
    void messagesArriveInOrderUnderLoad() {
        long n = 20_000;
        Mono<Void> send = client().send(sequence(client(), n, 64));
        StepVerifier.create(expectSequence(server(), n, 64).zipWith(send.thenReturn(true), (c, s) -> c))
                .expectNext(n)
                .expectComplete()
                .verify(TIMEOUT);
    }

    @Test
    void queuedSmallMessagesMayBeCoalescedButStayCountedAndOrdered() {
        long n = 50_000;
        StepVerifier.create(expectSequence(server(), n, 24)
                        .zipWith(client().send(sequence(client(), n, 24)).thenReturn(true), (c, s) -> c))
                .expectNext(n).verifyComplete();
        EndpointStats sender = client().stats().block(TIMEOUT);
        EndpointStats receiver = server().stats().block(TIMEOUT);
        assertThat(sender.messagesSent()).as("credits and counts are per message").isEqualTo(n);
        assertThat(receiver.messagesReceived()).isEqualTo(n);
        assertThat(sender.maxSendsInFlight()).isLessThanOrEqualTo(receiver.maxReceivesPosted());
    }

    @Test
    void echoInBothDirectionsUnderLoadKeepsFlowing() {
        // Both sides coalesce and grant at once: catches receive-buffer and credit accounting that drifts apart.
        long n = 20_000;
        Disposable echo = server().send(server().receive().retain()).subscribe(null, e -> { });
        StepVerifier.create(expectSequence(client(), n, 40)
                        .zipWith(client().send(sequence(client(), n, 40)).thenReturn(true), (c, s) -> c))
                .expectNext(n).verifyComplete();
        echo.dispose();
    }

    @Test
    void aLoneMessageIsNotHeldBackForCompany() {
        // prime credits, then one message must arrive on its own
        Mono<Long> one = server().receive().next().map(Messages::seq);
        StepVerifier.create(one.zipWith(client().send(Messages.make(client().memory(), 99, 16)).thenReturn(1),
                (s, x) -> s)).expectNext(99L).verifyComplete();
    }

    @Test
    void concurrentSingleSendsAreAllDelivered() {
        int threads = 4;
        int perThread = 500;
        Flux<Void> senders = Flux.range(0, threads)
                .flatMap(t -> Flux.range(0, perThread)
                        .concatMap(i -> client().send(Messages.make(client().memory(), t * 1_000_000L + i, 16)))
                        .subscribeOn(Schedulers.parallel()));
        Set<Long> seen = ConcurrentHashMap.newKeySet();
        Mono<Long> receive = server().receive().take((long) threads * perThread)
                .doOnNext(b -> seen.add(Messages.seq(b))).count();
        StepVerifier.create(receive.zipWith(senders.then(Mono.just(true)), (c, s) -> c))
                .expectNext((long) threads * perThread).verifyComplete();
        assertThat(seen).hasSize(threads * perThread);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"zero", "one", "inline", "64KiB", "1MiB"})
    void messageSizesRoundTripByteForByte(String which) {
        int size = switch (which) {
            case "zero" -> 0;
            case "one" -> 1;
            case "inline" -> Math.max(1, caps().maxInlineSize());
            case "64KiB" -> 64 << 10;
            default -> 1 << 20;
        };
        Assumptions.assumeTrue(size <= caps().maxMessageSize(), "transport's max message is smaller");
        long n = 3;
        StepVerifier.create(expectSequence(server(), n, size)
                        .zipWith(client().send(sequence(client(), n, size)).thenReturn(true), (c, s) -> c))
                .expectNext(n).verifyComplete();
    }

    @Test
    void messageOneByteOverTheMaximumIsRefusedClearly() {
        long max = caps().maxMessageSize();
        Assumptions.assumeTrue(max < (256 << 20), "max message size too large to allocate in a test");
        Buffer tooBig = client().memory().allocate((int) max + 1);
        StepVerifier.create(client().send(tooBig))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(MessageTooLargeException.class)
                        .hasMessageContaining(String.valueOf(max)))
                .verify(TIMEOUT);
        assertThat(tooBig.refCnt()).as("a refused send still releases the buffer it owned").isZero();
        // and the endpoint is still fine
        StepVerifier.create(expectSequence(server(), 1, 8).zipWith(client().send(Messages.make(client().memory(),
                        0, 8)).thenReturn(1), (a, b) -> a))
                .expectNext(1L).verifyComplete();
    }

    // ------------------------------------------------------------------------------------------ flow control

    @Test
    void slowConsumerBoundsInFlightByGrantedCredits() {
        long n = 2_000;
        int rate = 4;
        AtomicLong maxUndelivered = new AtomicLong();
        // The buffers cross threads (publishOn), so they are retained and released by the consumer.
        Mono<Long> slow = server().receive()
                .retain()
                .limitRate(rate)
                .publishOn(Schedulers.single(), 1)
                .take(n)
                .doOnNext(b -> {
                    LockSupport.parkNanos(20_000);
                    b.release();
                })
                .doOnDiscard(Buffer.class, Buffer::release)
                .count();
        StepVerifier.create(slow.zipWith(client().send(sequence(client(), n, 32)).thenReturn(1), (c, s) -> c))
                .expectNext(n).verifyComplete();
        EndpointStats sender = client().stats().block(TIMEOUT);
        EndpointStats receiver = server().stats().block(TIMEOUT);
        // limitRate(4) never lets more than 4 be outstanding, so never more than 4 receives posted = credits granted
        assertThat(receiver.maxReceivesPosted()).isLessThanOrEqualTo(rate);
        assertThat(sender.maxSendsInFlight()).isLessThanOrEqualTo(receiver.maxReceivesPosted());
        assertThat(sender.messagesSent()).isEqualTo(n);
        assertThat(receiver.creditsGranted()).isGreaterThanOrEqualTo(n);
        assertThat(sender.creditStalls()).as("a slow consumer must have made the sender wait").isPositive();
        assertThat(maxUndelivered.get()).isZero();
    }

    @Test
    void senderWithoutReceiverWaitsInsteadOfFailing() {
        AtomicReference<Throwable> error = new AtomicReference<>();
        Disposable d = client().send(Messages.make(client().memory(), 7, 16)).subscribe(null, error::set);
        awaitTrue(() -> client().stats().block(TIMEOUT).pendingOperations() == 1, "send parked");
        LockSupport.parkNanos(Duration.ofMillis(100).toNanos());
        assertThat(error.get()).isNull();
        assertThat(client().stats().block(TIMEOUT).pendingOperations()).isEqualTo(1);
        StepVerifier.create(server().receive().next().map(Messages::seq)).expectNext(7L).verifyComplete();
        d.dispose();
    }

    // ------------------------------------------------------------------------------------------ RMA


    @Test
    void putAndGetRoundTripByteForByte() {
        try (Arena arena = Arena.ofShared()) {
            int size = 256 << 10;
            MemoryRegion target = server().memory().register(arena.allocate(size, 64), GRANTABLE);
            MemoryRegion local = client().memory().register(arena.allocate(size, 64));
            RemoteMemory remote = exposeOnServer(target);
            Messages.fill(local.segment(), 42);
            StepVerifier.create(client().put(local.slice(), remote).then(client().flush())).verifyComplete();
            assertThat(Messages.verify(target.segment(), 42, size)).isTrue();

            Messages.fill(target.segment(), 43);
            MemoryRegion back = client().memory().register(arena.allocate(size, 64));
            StepVerifier.create(client().get(remote, back.slice())).verifyComplete();
            assertThat(Messages.verify(back.segment(), 43, size)).isTrue();

            // a narrowed window reaches exactly its bytes
            RemoteMemory window = remote.slice(1000, 24);
            MemoryRegion small = client().memory().register(arena.allocate(24));
            small.segment().fill((byte) 0x5a);
            StepVerifier.create(client().put(small.slice(), window).then(client().flush())).verifyComplete();
            assertThat(target.segment().get(ValueLayout.JAVA_BYTE, 999)).isNotEqualTo((byte) 0x5a);
            assertThat(target.segment().get(ValueLayout.JAVA_BYTE, 1000)).isEqualTo((byte) 0x5a);
            assertThat(target.segment().get(ValueLayout.JAVA_BYTE, 1023)).isEqualTo((byte) 0x5a);
            assertThat(target.segment().get(ValueLayout.JAVA_BYTE, 1024)).isNotEqualTo((byte) 0x5a);
            target.close();
            local.close();
            back.close();
            small.close();
        }
    }

    @Test
    void flushMeansEveryEarlierPutIsVisibleAtTheTarget() {
        try (Arena arena = Arena.ofShared()) {
            int slots = 512;
            MemoryRegion target = server().memory().register(arena.allocate(8L * slots, 8), GRANTABLE);
            MemoryRegion local = client().memory().register(arena.allocate(8L * slots, 8));
            RemoteMemory remote = exposeOnServer(target);
            for (int i = 0; i < slots; i++) {
                local.segment().setAtIndex(ValueLayout.JAVA_LONG, i, i + 1);
            }
            Flux<Void> puts = Flux.range(0, slots)
                    .flatMap(i -> client().put(local.slice(8L * i, 8), remote.slice(8L * i, 8)), 64);
            StepVerifier.create(puts.then(client().flush())).verifyComplete();
            for (int i = 0; i < slots; i++) {
                assertThat(target.segment().getAtIndex(ValueLayout.JAVA_LONG, i)).isEqualTo(i + 1);
            }
            target.close();
            local.close();
        }
    }

    @Test
    void streamedPutsWriteEverySliceWithinTheSendQueue() {
        try (Arena arena = Arena.ofShared()) {
            int slots = 2048;
            int size = 64;
            MemoryRegion target = server().memory().register(arena.allocate((long) size * slots, 64), GRANTABLE);
            MemoryRegion local = client().memory().register(arena.allocate((long) size * slots, 64));
            RemoteMemory remote = exposeOnServer(target);
            for (int i = 0; i < slots; i++) {
                Messages.fill(local.segment().asSlice((long) size * i, size), i);
            }
            AtomicLong firstRequest = new AtomicLong(-1);
            AtomicLong requested = new AtomicLong();
            Flux<RemoteWrite> writes = Flux.range(0, slots)
                    .map(i -> new RemoteWrite(local.slice((long) size * i, size), remote.slice((long) size * i, size)))
                    .doOnRequest(n -> {
                        firstRequest.compareAndSet(-1, n);
                        requested.addAndGet(n);
                    });
            StepVerifier.create(client().put(writes).then(client().flush())).verifyComplete();
            for (int i = 0; i < slots; i++) {
                assertThat(Messages.verify(target.segment().asSlice((long) size * i, size), i, size))
                        .as("slot %d", i).isTrue();
            }
            // demand is send-queue slots: never more up front than the queue holds, then one per completion
            assertThat(firstRequest.get()).isBetween(1L, (long) caps().sendQueueDepth());
            assertThat(requested.get()).isLessThanOrEqualTo(slots + (long) caps().sendQueueDepth());
            target.close();
            local.close();
        }
    }

    @Test
    void aBadWriteEndsTheStreamWithItsErrorAndCancelsUpstream() {
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion target = server().memory().register(arena.allocate(4096, 64), GRANTABLE);
            MemoryRegion local = client().memory().register(arena.allocate(8192, 64));
            RemoteMemory remote = exposeOnServer(target);
            AtomicLong cancelled = new AtomicLong();
            // the 100th write is one byte wider than its window: refused before posting, the stream fails with it
            Flux<RemoteWrite> writes = Flux.range(0, 1000)
                    .map(i -> i == 99 ? new RemoteWrite(local.slice(0, 65), remote.slice(0, 64))
                            : new RemoteWrite(local.slice(0, 64), remote.slice(64L * (i % 64), 64)))
                    .doOnCancel(cancelled::incrementAndGet);
            StepVerifier.create(client().put(writes)).expectError(RemoteAccessException.class).verify(TIMEOUT);
            assertThat(cancelled.get()).isEqualTo(1);
            StepVerifier.create(client().put(Flux.error(new IllegalStateException("upstream broke"))))
                    .expectErrorMessage("upstream broke").verify(TIMEOUT);
            StepVerifier.create(client().put((org.reactivestreams.Publisher<RemoteWrite>) null))
                    .expectError(InvalidRequestException.class).verify(TIMEOUT);
            assertThatThrownBy(() -> new RemoteWrite(null, remote)).isInstanceOf(InvalidRequestException.class);
            // the endpoint is fine afterwards, and nothing is left in flight or pending
            StepVerifier.create(client().put(Flux.just(new RemoteWrite(local.slice(0, 64), remote.slice(0, 64))))
                    .then(client().flush())).verifyComplete();
            EndpointStats stats = client().stats().block(TIMEOUT);
            assertThat(stats.sendsInFlight()).isZero();
            assertThat(stats.pendingOperations()).isZero();
            target.close();
            local.close();
        }
    }

    @Test
    void fenceOrdersLaterOperationsAfterEarlierOnes() {
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion target = server().memory().register(arena.allocate(8, 8), GRANTABLE);
            MemoryRegion local = client().memory().register(arena.allocate(16, 8));
            RemoteMemory remote = exposeOnServer(target);
            for (int round = 1; round <= 50; round++) {
                local.segment().set(ValueLayout.JAVA_LONG, 0, round);
                Mono<Void> put = client().put(local.slice(0, 8), remote);
                Mono<Void> fence = client().fence();
                Mono<Void> get = client().get(remote, local.slice(8, 8));
                // subscribe all three before any completes: only the fence keeps the get behind the put
                StepVerifier.create(Mono.when(put, fence, get)).verifyComplete();
                assertThat(local.segment().get(ValueLayout.JAVA_LONG, 8)).isEqualTo(round);
            }
            target.close();
            local.close();
        }
    }

    @Test
    void atomicsAreAtomicUnderConcurrentCallers() {
        Assumptions.assumeTrue(caps().supports(Operation.ATOMIC_FETCH_ADD_64), "no 64-bit fetch-add");
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion target = server().memory().register(arena.allocate(16, 8), GRANTABLE);
            RemoteMemory remote = exposeOnServer(target);
            RemoteMemory counter = remote.slice(0, 8);
            int callers = 4;
            int each = 250;
            List<Long> previous = Flux.range(0, callers)
                    .flatMap(c -> Flux.range(0, each).concatMap(i -> client().fetchAdd(counter, 1))
                            .subscribeOn(Schedulers.parallel()))
                    .collectList().block(TIMEOUT);
            assertThat(target.segment().get(ValueLayout.JAVA_LONG, 0)).isEqualTo((long) callers * each);
            assertThat(new HashSet<>(previous)).as("every caller saw a distinct previous value")
                    .hasSize(callers * each);

            StepVerifier.create(client().compareAndSwap(counter, 999, 5)).expectNext(1000L).verifyComplete();
            assertThat(target.segment().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(1000L);
            StepVerifier.create(client().compareAndSwap(counter, 1000, 5)).expectNext(1000L).verifyComplete();
            StepVerifier.create(client().swap(counter, -1)).expectNext(5L).verifyComplete();
            StepVerifier.create(client().add(counter, 2).then(client().fetchAdd(counter, 0)))
                    .expectNext(1L).verifyComplete();
            if (caps().supports(Operation.ATOMIC_FETCH_ADD_32)) {
                RemoteMemory word = remote.slice(8, 4);
                StepVerifier.create(client().fetchAdd32(word, 7).then(client().swap32(word, -3)))
                        .expectNext(7L).verifyComplete();
                StepVerifier.create(client().compareAndSwap32(word, -3, 1)).expectNext(-3L).verifyComplete();
                assertThat(target.segment().get(ValueLayout.JAVA_INT, 8)).isEqualTo(1);
            } else {
                StepVerifier.create(client().fetchAdd32(remote.slice(8, 4), 1))
                        .expectError(OperationNotSupportedException.class).verify(TIMEOUT);
            }
            target.close();
        }
    }

    // ------------------------------------------------------------------------------------------ bad input

    @Test
    void nullArgumentsAreInvalidRequests() {
        StepVerifier.create(client().send((Buffer) null)).expectError(InvalidRequestException.class).verify(TIMEOUT);
        StepVerifier.create(client().send((org.reactivestreams.Publisher<Buffer>) null))
                .expectError(InvalidRequestException.class).verify(TIMEOUT);
        StepVerifier.create(client().put(null, null)).expectError(InvalidRequestException.class).verify(TIMEOUT);
        StepVerifier.create(client().fetchAdd(null, 1)).expectError(InvalidRequestException.class).verify(TIMEOUT);
        assertThatThrownBy(() -> client().memory().register(null)).isInstanceOf(InvalidRequestException.class);
    }

    @Test
    void negativeAndOversizedLengthsAreRefusedBeforePosting() {
        try (Arena arena = Arena.ofConfined()) {
            MemoryRegion r = client().memory().register(arena.allocate(64), GRANTABLE);
            assertThatThrownBy(() -> r.slice(-1, 8)).isInstanceOf(InvalidRequestException.class);
            assertThatThrownBy(() -> r.slice(0, -8)).isInstanceOf(InvalidRequestException.class);
            assertThatThrownBy(() -> r.slice(60, 8)).isInstanceOf(InvalidRequestException.class);
            assertThatThrownBy(() -> client().memory().allocate(-1)).isInstanceOf(InvalidRequestException.class);
            assertThatThrownBy(() -> new RemoteMemory(0, -1, 1, null)).isInstanceOf(InvalidRequestException.class);
            assertThatThrownBy(() -> r.grantToAnyPeer(0, 64, Access.REMOTE_READ).remote().slice(0, 65))
                    .isInstanceOf(InvalidRequestException.class);
            assertThatThrownBy(() -> r.grantToAnyPeer(0, 65, Access.REMOTE_READ))
                    .isInstanceOf(InvalidRequestException.class);
            Buffer b = client().memory().allocate(8);
            assertThatThrownBy(() -> b.length(9 + b.capacity())).isInstanceOf(InvalidRequestException.class);
            b.release();
            r.close();
        }
    }

    @Test
    void unregisteredHeapAndClosedMemoryAreInvalid() {
        try (Arena arena = Arena.ofShared()) {
            MemorySegment plain = arena.allocate(64);
            assertThatThrownBy(() -> client().memory().lookup(plain)).isInstanceOf(InvalidMemoryException.class);
            assertThatThrownBy(() -> client().memory().register(MemorySegment.ofArray(new byte[64])))
                    .isInstanceOf(InvalidMemoryException.class);

            MemoryRegion target = server().memory().register(arena.allocate(64), GRANTABLE);
            RemoteMemory remote = exposeOnServer(target);
            MemoryRegion local = client().memory().register(arena.allocate(64));
            RegisteredSlice slice = local.slice();
            local.close();
            StepVerifier.create(client().put(slice, remote)).expectError(InvalidMemoryException.class)
                    .verify(TIMEOUT);

            MemoryRegion foreign = server().memory().register(arena.allocate(64), GRANTABLE);
            StepVerifier.create(client().put(foreign.slice(), remote)).expectError(InvalidMemoryException.class)
                    .verify(TIMEOUT);

            Buffer released = client().memory().allocate(8);
            released.release();
            StepVerifier.create(client().send(released)).expectError(InvalidMemoryException.class).verify(TIMEOUT);
            Buffer other = server().memory().allocate(8);
            StepVerifier.create(client().send(other)).expectError(InvalidMemoryException.class).verify(TIMEOUT);
            assertThat(other.refCnt()).isZero();
            target.close();
            foreign.close();
        }
    }

    /**
     * Grants the client {@code rights} on {@code window} and runs {@code op} on the handle, which the target must
     * refuse: the operation fails with {@link RemoteAccessException}, and then either the endpoint still works or,
     * where the transport's connection does not survive a refusal ({@link Capabilities#refusalClosesConnection()}),
     * both endpoints close with {@link ConnectionLostException} and the test goes on over a fresh connection.
     */
    private RemoteAccessException refused(RegisteredSlice window, Set<Access> rights,
                                          java.util.function.BiFunction<Endpoint, RemoteMemory, Mono<?>> op) {
        Grant grant = server().grant(window, rights.toArray(Access[]::new));
        RemoteMemory handle = exposeOnServer(grant);
        return refused(() -> op.apply(client(), handle));
    }

    private RemoteAccessException refused(java.util.function.Supplier<Mono<?>> op) {
        Throwable t = op.get().materialize().block(TIMEOUT).getThrowable();
        assertThat(t).isInstanceOf(RemoteAccessException.class);
        afterRefusal();
        return (RemoteAccessException) t;
    }

    private static Set<Access> rights(Access... a) {
        return Access.setOf(a);
    }

    @Test
    void forgedOrOutOfBoundsRemoteKeysAreRemoteAccessErrors() {
        Assumptions.assumeTrue(caps().remoteAccessChecked(), () -> caps().transport()
                + " does not enforce remote keys at the target (see Capabilities#remoteAccessChecked)");
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion target = server().memory().register(arena.allocate(128, 8), GRANTABLE);
            MemoryRegion localOnly = server().memory().register(arena.allocate(64, 8), Access.LOCAL);
            assertThatThrownBy(() -> server().grant(localOnly.slice(), Access.REMOTE_READ))
                    .isInstanceOf(InvalidMemoryException.class);
            assertThatThrownBy(() -> localOnly.grantToAnyPeer(0, 64, Access.REMOTE_READ))
                    .isInstanceOf(InvalidMemoryException.class);
            Buffer pooled = server().memory().allocate(64);
            assertThatThrownBy(() -> server().grant(pooled.region().slice(pooled.regionOffset(), 64),
                    Access.REMOTE_READ)).as("pool memory is never granted").isInstanceOf(InvalidMemoryException.class);
            pooled.release();
            MemoryRegion local = client().memory().register(arena.allocate(256, 8));
            target.segment().fill((byte) 1);
            Set<Access> all = rights(Access.REMOTE_READ, Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);

            refused(target.slice(), all, (ep, r) -> ep.put(local.slice(0, 64),
                    new RemoteMemory(r.address(), r.length(), r.key() ^ 0x5a5a, r.providerBytes())));
            refused(target.slice(), all, (ep, r) -> ep.put(local.slice(0, 256),
                    new RemoteMemory(r.address(), 256, r.key(), r.providerBytes())));
            refused(target.slice(), all, (ep, r) -> ep.get(
                    new RemoteMemory(r.address() - 64, 128, r.key(), r.providerBytes()), local.slice(0, 128)));
            // the initiator refuses what it can see is wrong before anything is posted
            RemoteMemory remote = exposeOnServer(server().grant(target.slice(), Access.REMOTE_WRITE));
            StepVerifier.create(client().put(local.slice(0, 129), remote))
                    .expectError(RemoteAccessException.class).verify(TIMEOUT);
            if (caps().supports(Operation.ATOMIC_FETCH_ADD_64)) {
                refused(target.slice(), all, (ep, r) -> ep.fetchAdd(
                        new RemoteMemory(r.address(), 8, r.key() ^ 0x77, r.providerBytes()), 1));
            }
            for (long i = 0; i < 128; i++) {
                assertThat(target.segment().get(ValueLayout.JAVA_BYTE, i)).as("target untouched").isEqualTo((byte) 1);
            }
            // a deregistered target is refused too
            RemoteMemory doomed = exposeOnServer(server().grant(target.slice(), Access.REMOTE_WRITE));
            target.close();
            refused(() -> client().put(local.slice(0, 8), doomed));
            local.close();
            localOnly.close();
        }
    }

    @Test
    void theTargetEnforcesTheGrantedWindowNotTheRegion() {
        Assumptions.assumeTrue(caps().remoteAccessChecked(), () -> caps().transport()
                + " does not enforce remote keys at the target (see Capabilities#remoteAccessChecked)");
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion target = server().memory().register(arena.allocate(256, 8), GRANTABLE);
            target.segment().fill((byte) 1);
            MemoryRegion local = client().memory().register(arena.allocate(256, 8));
            local.segment().fill((byte) 9);
            Set<Access> rw = rights(Access.REMOTE_READ, Access.REMOTE_WRITE);
            // A peer that widens its handle by hand, in either direction, reaches nothing beyond the window.
            refused(target.slice(64, 64), rw, (ep, w) -> ep.put(local.slice(0, 128),
                    new RemoteMemory(w.address(), 128, w.key(), w.providerBytes())));
            refused(target.slice(64, 64), rw, (ep, w) -> ep.get(
                    new RemoteMemory(w.address() - 64, 64, w.key(), w.providerBytes()), local.slice(0, 64)));
            for (long i = 0; i < 256; i++) {
                assertThat(target.segment().get(ValueLayout.JAVA_BYTE, i)).as("byte %d untouched", i)
                        .isEqualTo((byte) 1);
            }
            Grant grant = server().grant(target.slice(64, 64), Access.REMOTE_READ, Access.REMOTE_WRITE);
            RemoteMemory window = exposeOnServer(grant);
            assertThat(window.length()).isEqualTo(64);
            StepVerifier.create(client().put(local.slice(0, 64), window).then(client().flush())).verifyComplete();
            assertThat(target.segment().get(ValueLayout.JAVA_BYTE, 63)).isEqualTo((byte) 1);
            assertThat(target.segment().get(ValueLayout.JAVA_BYTE, 64)).isEqualTo((byte) 9);
            assertThat(target.segment().get(ValueLayout.JAVA_BYTE, 127)).isEqualTo((byte) 9);
            assertThat(target.segment().get(ValueLayout.JAVA_BYTE, 128)).isEqualTo((byte) 1);
            grant.close();
            local.close();
            target.close();
        }
    }

    @Test
    void grantedRightsAreExactlyThoseGranted() {
        Assumptions.assumeTrue(caps().remoteAccessChecked(), () -> caps().transport()
                + " does not enforce remote keys at the target (see Capabilities#remoteAccessChecked)");
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion target = server().memory().register(arena.allocate(64, 8), GRANTABLE);
            MemoryRegion local = client().memory().register(arena.allocate(64, 8));
            refused(target.slice(), rights(Access.REMOTE_WRITE), (ep, w) -> ep.get(w, local.slice()));
            refused(target.slice(), rights(Access.REMOTE_READ), (ep, r) -> ep.put(local.slice(), r));
            if (caps().supports(Operation.ATOMIC_FETCH_ADD_64)) {
                refused(target.slice(), rights(Access.REMOTE_READ), (ep, r) -> ep.fetchAdd(r.slice(0, 8), 1));
            }
            RemoteMemory writeOnly = exposeOnServer(server().grant(target.slice(), Access.REMOTE_WRITE));
            RemoteMemory readOnly = exposeOnServer(server().grant(target.slice(), Access.REMOTE_READ));
            StepVerifier.create(client().put(local.slice(), writeOnly).then(client().get(readOnly, local.slice())))
                    .verifyComplete();
            local.close();
            target.close();
        }
    }

    @Test
    void everyRefusalReadsTheSameSoNoKeyCanBeToldFromAnother() {
        Assumptions.assumeTrue(caps().remoteAccessChecked(), () -> caps().transport()
                + " does not enforce remote keys at the target (see Capabilities#remoteAccessChecked)");
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion target = server().memory().register(arena.allocate(64, 8), GRANTABLE);
            MemoryRegion local = client().memory().register(arena.allocate(128, 8));
            Set<Access> writeOnly = rights(Access.REMOTE_WRITE);
            Set<String> messages = new HashSet<>();
            messages.add(refused(target.slice(), writeOnly, (ep, w) -> ep.get(new RemoteMemory(w.address(), 64,
                    w.key() ^ 0x1000, w.providerBytes()), local.slice(0, 64))).getMessage());
            messages.add(refused(target.slice(), writeOnly, (ep, w) -> ep.get(w, local.slice(0, 64))).getMessage());
            messages.add(refused(target.slice(), writeOnly, (ep, w) -> ep.put(local.slice(0, 128),
                    new RemoteMemory(w.address(), 128, w.key(), w.providerBytes()))).getMessage());
            assertThat(messages).as("unknown key, missing right and outside the window answer alike").hasSize(1);
            local.close();
            target.close();
        }
    }

    @Test
    void aRevokedGrantIsRefusedAtOnce() {
        Assumptions.assumeTrue(caps().remoteAccessChecked(), () -> caps().transport()
                + " does not enforce remote keys at the target (see Capabilities#remoteAccessChecked)");
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion target = server().memory().register(arena.allocate(64, 8), GRANTABLE);
            MemoryRegion local = client().memory().register(arena.allocate(64, 8));
            Grant grant = server().grant(target.slice(), Access.REMOTE_READ, Access.REMOTE_WRITE);
            RemoteMemory remote = exposeOnServer(grant);
            StepVerifier.create(client().get(remote, local.slice())).verifyComplete();
            grant.close();
            assertThat(grant.isOpen()).isFalse();
            refused(() -> client().get(remote, local.slice()));
            // a region's close revokes every grant on it, however many handles are out
            RemoteMemory again = exposeOnServer(server().grant(target.slice(), Access.REMOTE_READ));
            RemoteMemory shared = target.grantToAnyPeer(0, 64, Access.REMOTE_READ).remote();
            target.close();
            refused(() -> client().get(again, local.slice()));
            refused(() -> client().get(shared, local.slice()));
            local.close();
        }
    }

    @Test
    void aGrantAnswersOnlyTheConnectionItWasMadeFor() {
        Assumptions.assumeTrue(caps().remoteAccessChecked() && caps().grantScopeChecked(), () -> caps().transport()
                + " cannot check which connection presents a key (see Capabilities#grantScopeChecked)");
        Pair second = Pair.connect(pair.serverTransport(), pair.clientTransport(),
                bindAddress(getClass().getSimpleName() + "-second"));
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion target = server().memory().register(arena.allocate(64, 8), GRANTABLE);
            RemoteMemory forFirst = exposeOnServer(server().grant(target.slice(), Access.REMOTE_READ));
            MemoryRegion local = second.client().memory().register(arena.allocate(64, 8));
            StepVerifier.create(second.client().get(forFirst, local.slice())).expectError(RemoteAccessException.class)
                    .verify(TIMEOUT);
            StepVerifier.create(client().get(forFirst, local.slice())).verifyComplete();
            // what the owner shares explicitly reaches every connection
            RemoteMemory shared = target.grantToAnyPeer(0, 64, Access.REMOTE_READ).remote();
            StepVerifier.create(second.client().get(shared, local.slice())).verifyComplete();
            // and a connection's grants end with it
            int before = server().memory().grantCount();
            second.server().grant(target.slice(), Access.REMOTE_READ);
            assertThat(server().memory().grantCount()).isEqualTo(before + 1);
            second.close();
            assertThat(server().memory().grantCount()).isEqualTo(before);
            local.close();
            target.close();
        } finally {
            second.close();
        }
    }

    @Test
    void regionWithOperationsInFlightDeregistersOnlyAfterThem() {
        try (Arena arena = Arena.ofShared()) {
            Buffer b = Messages.make(client().memory(), 1, 1024);
            MemoryRegion slab = b.region();
            Mono<Void> send = client().send(b);
            Disposable sub = send.subscribe(); // parked: nobody receives yet
            awaitTrue(() -> client().stats().block(TIMEOUT).pendingOperations() == 1, "send parked");
            assertThat(slab.pins()).as("the pending send pins its memory").isPositive();
            MemoryRegion mine = client().memory().register(arena.allocate(64));
            assertThat(Internals.memory().tryPin(mine)).isTrue();
            mine.close();
            assertThat(mine.isOpen()).isFalse();
            StepVerifier.create(mine.onClose()).expectSubscription().expectNoEvent(Duration.ofMillis(100))
                    .thenCancel().verify(TIMEOUT);
            Internals.memory().unpin(mine);
            StepVerifier.create(mine.onClose()).verifyComplete();
            StepVerifier.create(server().receive().next().then()).verifyComplete();
            sub.dispose();
        }
    }

    // ------------------------------------------------------------------------------------------ cancellation

    @Test
    void cancellingAtEveryStageLeaksNothingAndKeepsCredits() {
        // 1. cancel a single send before anyone granted credits: it is dropped, its buffer released
        Disposable early = client().send(Messages.make(client().memory(), 0, 32)).subscribe();
        early.dispose();
        // 2. cancel a streaming send midway through
        AtomicLong produced = new AtomicLong();
        Disposable stream = client().send(Flux.<Buffer, Long>generate(() -> 1_000L, (s, sink) -> {
            produced.incrementAndGet();
            sink.next(Messages.make(client().memory(), s, 32));
            return s + 1;
        })).subscribe();
        // 3. receive part of the stream, cancel, then a new subscriber continues in order without loss
        List<Long> first = server().receive().take(50).map(Messages::seq).collectList().block(TIMEOUT);
        stream.dispose();
        assertThat(first).hasSize(50);
        long start = first.getFirst();
        for (int i = 0; i < first.size(); i++) {
            assertThat(first.get(i)).isEqualTo(start + i);
        }
        // drain whatever was already granted and in flight, in order
        List<Long> rest = server().receive().take(Duration.ofMillis(500)).map(Messages::seq).collectList()
                .block(TIMEOUT);
        for (int i = 0; i < rest.size(); i++) {
            assertThat(rest.get(i)).isEqualTo(first.getLast() + 1 + i);
        }
        // 4. cancel an operation after it was posted: its completion still releases its memory
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion target = server().memory().register(arena.allocate(1 << 20), GRANTABLE);
            RemoteMemory remote = exposeOnServer(target);
            MemoryRegion local = client().memory().register(arena.allocate(1 << 20));
            for (int i = 0; i < 20; i++) {
                client().get(remote, local.slice()).subscribe().dispose();
            }
            StepVerifier.create(client().flush()).verifyComplete();
            assertThat(local.pins()).isZero();
            target.close();
            local.close();
        }
        // 5. credits were not lost: a fresh exchange of more messages than the receive depth still flows
        long n = caps().receiveQueueDepth() * 3L;
        StepVerifier.create(expectSequence(server(), n, 16)
                        .zipWith(client().send(sequence(client(), n, 16)).thenReturn(1), (c, s) -> c))
                .expectNext(n).verifyComplete();
    }

    // ------------------------------------------------------------------------------------------ closing

    @Test
    void serverClosingMidStreamTerminatesEverySignal() {
        Mono<Void> endless = client().send(Flux.<Buffer, Long>generate(() -> 0L, (s, sink) -> {
            sink.next(Messages.make(client().memory(), s, 64));
            return s + 1;
        }));
        AtomicLong received = new AtomicLong();
        Disposable rx = server().receive().doOnNext(b -> {
            if (received.incrementAndGet() == 1_000) {
                server().dispose();
            }
        }).subscribe();
        StepVerifier.create(endless)
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(TransportException.class)
                        .isInstanceOfAny(ConnectionLostException.class, ResourceClosedException.class))
                .verify(TIMEOUT);
        StepVerifier.create(client().receive()).expectComplete().verify(TIMEOUT);
        StepVerifier.create(client().onClose()).verifyComplete();
        StepVerifier.create(client().send(Messages.make(client().memory(), 0, 8)))
                .expectError(TransportException.class).verify(TIMEOUT);
        rx.dispose();
    }

    @Test
    void clientClosingMidStreamCompletesTheReceiverAndFailsItsOwnPendingOps() {
        AtomicLong received = new AtomicLong();
        StepVerifier.create(server().receive().doOnNext(b -> {
                    if (received.incrementAndGet() == 500) {
                        client().dispose();
                    }
                }).then())
                .then(() -> client().send(sequence(client(), Long.MAX_VALUE, 128)).subscribe(null, e -> { }))
                .expectComplete()
                .verify(TIMEOUT);
        StepVerifier.create(client().flush()).expectError(ResourceClosedException.class).verify(TIMEOUT);
        StepVerifier.create(server().onClose()).verifyComplete();
    }

    @Test
    void disposingTheTransportClosesItsEndpoints() {
        Disposable sending = client().send(sequence(client(), Long.MAX_VALUE, 64)).subscribe(null, e -> { });
        StepVerifier.create(server().receive().take(100).then()).verifyComplete();
        pair.clientTransport().dispose();
        StepVerifier.create(pair.clientTransport().onDispose()).verifyComplete();
        StepVerifier.create(server().onClose()).verifyComplete();
        StepVerifier.create(client().onClose()).verifyComplete();
        sending.dispose();
    }
}
