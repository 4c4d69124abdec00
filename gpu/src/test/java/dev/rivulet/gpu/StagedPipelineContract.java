package dev.rivulet.gpu;

import dev.rivulet.core.error.MessageTooLargeException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.gpu.bench.GpuStagingBench;
import dev.rivulet.gpu.host.HostMemoryStandIn;
import dev.rivulet.gpu.metrics.GpuMetrics.Outcome;
import dev.rivulet.gpu.metrics.GpuMetrics.TransferOp;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Subscription;
import reactor.core.Disposable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static dev.rivulet.gpu.TransferRig.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The staged pipeline end to end over one transport, with the host stand-in as the device memory type on both
 * sides: round trips by checksum, chunk order, credit accounting, cancellation and injected copy failures. Every
 * test checks that no pooled buffer leaked and that every staging buffer came back.
 */
abstract class StagedPipelineContract {

    static final int CHUNK = 256 << 10;

    private final List<AutoCloseable> closeables = new ArrayList<>();
    ScriptedHook senderHook;
    ScriptedHook receiverHook;
    HostMemoryStandIn senderMemory;
    HostMemoryStandIn receiverMemory;

    /** The kind of transport under test. */
    abstract TestTransport transport();

    @BeforeEach
    void setUp() {
        LeakDetector.enable();
        LeakDetector.reset();
        StepVerifier.setDefaultTimeout(TIMEOUT);
        senderHook = new ScriptedHook();
        receiverHook = new ScriptedHook();
        senderMemory = HostMemoryStandIn.create(senderHook);
        receiverMemory = HostMemoryStandIn.create(receiverHook);
    }

    @AfterEach
    void tearDown() throws Exception {
        senderHook.openAll(); // a test that failed while holding copies leaves none waiting
        receiverHook.openAll();
        try {
            for (int i = closeables.size() - 1; i >= 0; i--) {
                closeables.get(i).close();
            }
            LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
            senderMemory.close();
            receiverMemory.close();
            for (HostMemoryStandIn m : List.of(senderMemory, receiverMemory)) {
                awaitTrue(() -> m.stats().buffers() == 0, "device buffers freed");
                assertThat(m.stats().events()).as("events of " + m).isZero();
                assertThat(m.stats().streams()).as("streams of " + m).isZero();
            }
        } finally {
            LeakDetector.disable();
            StepVerifier.resetDefaultTimeout();
        }
    }

    TransferRig rig(DeviceTransferConfig config) {
        TransferRig r = TransferRig.open(transport(), senderMemory, receiverMemory, config);
        closeables.add(r);
        return r;
    }

    static DeviceTransferConfig config(int staging) {
        return DeviceTransferConfig.defaults().chunkSize(CHUNK).stagingBuffers(staging);
    }

    /** Asserts that no staging buffer is held on either side (after the transfers ended). */
    static void assertStagingReturned(TransferRig r) {
        awaitTrue(() -> r.tx.stagingInUse() == 0 && r.rx.stagingInUse() == 0 && r.tx.receivedInFlight() == 0
                && r.rx.receivedInFlight() == 0, "every staging buffer returned");
    }

    static void awaitTrue(BooleanSupplier condition, String what) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.onSpinWait();
            java.util.concurrent.locks.LockSupport.parkNanos(200_000);
        }
    }

    // ---- round trips ----

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(longs = {1 << 10, 1 << 20, 64 << 20, (3 << 20) + 7})
    void sendReceiveRoundTripByChecksum(long size) {
        TransferRig r = rig(config(4));
        DeviceBuffer src = r.source(size, size);
        DeviceBuffer dst = r.destination(size);
        long before = senderMemory.metrics().copies(CopyDirection.TO_HOST);

        StepVerifier.create(Mono.when(r.rx.receiveInto(dst.slice()).doOnNext(s ->
                        assertThat(s.length()).isEqualTo(size)), r.tx.send(src.slice())))
                .verifyComplete();

        r.assertReceived(dst.slice(), size);
        long chunks = (size + CHUNK - 1) / CHUNK;
        assertThat(senderMemory.metrics().copies(CopyDirection.TO_HOST) - before).isEqualTo(chunks);
        assertThat(senderMemory.metrics().transfers(TransferOp.SEND, TransferPath.STAGED, Outcome.SUCCESS))
                .isEqualTo(1);
        assertThat(receiverMemory.metrics().transfers(TransferOp.RECEIVE, TransferPath.STAGED, Outcome.SUCCESS))
                .isEqualTo(1);
        assertThat(r.tx.capabilities().messagePath()).isEqualTo(TransferPath.STAGED);
        assertStagingReturned(r);
    }

    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(longs = {1 << 10, 1 << 20, 64 << 20})
    void putThenGetRoundTripByChecksum(long size) {
        TransferRig r = rig(config(4));
        DeviceBuffer src = r.source(size, size + 1);
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion window = r.serverTransport.memory().register(arena.allocate(size, 4096), Access.REMOTE_READ,
                    Access.REMOTE_WRITE);
            Grant grant = r.pair.server().grant(window.slice(), Access.REMOTE_READ, Access.REMOTE_WRITE);
            RemoteMemory remote = RemoteMemory.fromBytes(grant.remote().toBytes());

            StepVerifier.create(r.tx.put(src.slice(), remote)).verifyComplete();

            MemorySegment expected = arena.allocate(size, 64);
            GpuStagingBench.fill(expected, size + 1);
            assertThat(window.segment().mismatch(expected)).isEqualTo(-1L);

            DeviceBuffer back = r.track(senderMemory.allocate(size));
            StepVerifier.create(r.tx.get(remote, back.slice())).verifyComplete();
            TransferRig.assertPattern(r.txCopies, back.slice(), size + 1);
            assertThat(r.tx.capabilities().rmaPath()).isEqualTo(TransferPath.STAGED);
            assertStagingReturned(r);
            grant.close();
            window.close();
            window.onClose().block(TIMEOUT);
        }
    }

    @Test
    void messagesOfManySizesArriveWholeAndInOrder() {
        TransferRig r = rig(config(3));
        long[] sizes = {0, 1, CHUNK - 1, CHUNK, CHUNK + 1, 5L * CHUNK + 17, 100, 2L * CHUNK, 7, 3L * CHUNK - 3};
        int rounds = 4;
        List<DeviceBuffer> sources = new ArrayList<>();
        for (int i = 0; i < sizes.length * rounds; i++) {
            sources.add(r.source(sizes[i % sizes.length], 1000 + i));
        }
        List<DeviceBuffer> landing = new ArrayList<>();
        for (int i = 0; i < sizes.length * rounds; i++) {
            landing.add(r.destination(sizes[i % sizes.length]));
        }
        AtomicInteger next = new AtomicInteger();
        Mono<List<DeviceSlice>> received = r.rx.receive(len -> {
                    DeviceBuffer b = landing.get(next.getAndIncrement());
                    return b.slice(0, len);
                })
                .take(sources.size())
                .collectList();
        // Every send subscribed at once: their chunks must still go out message by message.
        Mono<Void> sent = Flux.range(0, sources.size())
                .flatMap(i -> r.tx.send(sources.get(i).slice(0, sizes[i % sizes.length])), sources.size())
                .then();

        List<DeviceSlice> got = Mono.zip(received, sent.thenReturn(1)).map(t -> t.getT1()).block(TIMEOUT);

        assertThat(got).hasSize(sources.size());
        for (int i = 0; i < got.size(); i++) {
            assertThat(got.get(i).length()).isEqualTo(sizes[i % sizes.length]);
            r.assertReceived(got.get(i), 1000 + i);
        }
        assertStagingReturned(r);
    }

    // ---- credits and overlap ----

    @Test
    void copiesOverlapTheNetworkAndStagingStaysBounded() {
        TransferRig r = rig(config(2));
        long size = 32L * CHUNK;
        DeviceBuffer src = r.source(size, 5);
        DeviceBuffer dst = r.destination(size);
        // The receiver's copies are the slow stage: its credits come late, so the sender would run ahead if its
        // staging were not bounded.
        receiverHook.delayNanos = 1_000_000;
        AtomicInteger maxInUse = new AtomicInteger();
        senderHook.sample = () -> {
            maxInUse.accumulateAndGet(r.tx.stagingInUse(), Math::max);
            return 0;
        };
        int copiesBefore = senderHook.toHost.get();
        long handedOverBefore = senderMemory.metrics().copies(CopyDirection.TO_HOST);
        // The copies of chunks 0 and 1 are held, so what happens meanwhile happens while they are under way.
        CountDownLatch chunk0 = senderHook.holdFrom(CopyDirection.TO_HOST, copiesBefore + 1);
        CountDownLatch chunk1 = senderHook.holdFrom(CopyDirection.TO_HOST, copiesBefore + 2);

        Mono<Void> transfer = Mono.when(r.rx.receiveInto(dst.slice()), r.tx.send(src.slice())).cache();
        transfer.subscribe(null, e -> { });

        awaitTrue(() -> r.tx.stagingInUse() == 2, "the copy of chunk 1 queued while the copy of chunk 0 runs");
        chunk0.countDown();
        // A chunk counts as copied when the pipeline takes its copy's end and hands the chunk to the network.
        awaitTrue(() -> senderMemory.metrics().copies(CopyDirection.TO_HOST) - handedOverBefore >= 1,
                "chunk 0 on the wire while the copy of chunk 1 runs");
        chunk1.countDown();

        StepVerifier.create(transfer).verifyComplete();
        r.assertReceived(dst.slice(), 5);
        assertThat(senderHook.toHost.get() - copiesBefore).isEqualTo(32);
        assertThat(maxInUse.get()).isLessThanOrEqualTo(2);
        assertStagingReturned(r);
    }

    @Test
    void aMessagesHeaderGoesOutWhileItsFirstChunkStillCopies() {
        TransferRig r = rig(config(4));
        long size = 8L * CHUNK;
        DeviceBuffer src = r.source(size, 71);
        DeviceBuffer dst = r.destination(size);
        long sentBefore = r.pair.client().stats().block(TIMEOUT).messagesSent();
        CountDownLatch firstCopy = senderHook.holdFrom(CopyDirection.TO_HOST, senderHook.toHost.get() + 1);

        Mono<Void> transfer = Mono.when(r.rx.receiveInto(dst.slice()), r.tx.send(src.slice())).cache();
        transfer.subscribe(null, e -> { });

        awaitTrue(() -> r.pair.client().stats().block(TIMEOUT).messagesSent() - sentBefore == 1,
                "the header sent while the copy of chunk 0 is held");
        firstCopy.countDown();
        StepVerifier.create(transfer).verifyComplete();
        r.assertReceived(dst.slice(), 71);
        assertStagingReturned(r);
    }

    @Test
    void aReceiverAsksForAMessagesHeaderAndFirstChunksAtOnce() {
        int staging = 4;
        TransferRig r = rig(config(staging));
        long size = 8L * CHUNK;
        DeviceBuffer src = r.source(size, 72);
        DeviceBuffer dst = r.destination(size);
        // A first message opens the connection's receive window (a transport may grant a new connection only a few
        // receive buffers until messages have come through it), so what the second gets up front is the pipeline's.
        StepVerifier.create(Mono.when(r.rx.receiveInto(dst.slice()), r.tx.send(src.slice()))).verifyComplete();
        r.assertReceived(dst.slice(), 72);
        long grantedBefore = r.pair.server().stats().block(TIMEOUT).creditsGranted();

        Mono<DeviceSlice> landed = r.rx.receiveInto(dst.slice()).cache();
        landed.subscribe(null, e -> { });

        // Nothing is sent yet: the credits for the chunks cannot have waited for the header.
        awaitTrue(() -> r.pair.server().stats().block(TIMEOUT).creditsGranted() - grantedBefore == staging + 1,
                "credits for the header and " + staging + " chunks granted before anything arrived");
        DeviceBuffer second = r.source(size, 73);
        StepVerifier.create(Mono.when(landed, r.tx.send(second.slice()))).verifyComplete();
        r.assertReceived(dst.slice(), 73);
        assertStagingReturned(r);
    }

    @Test
    void aSlowReceiverStallsTheSendersCopies() throws Exception {
        int staging = 2;
        TransferRig r = rig(config(staging));
        int messages = 6;
        long size = 8L * CHUNK;
        List<DeviceBuffer> sources = new ArrayList<>();
        List<DeviceBuffer> landing = new ArrayList<>();
        for (int i = 0; i < messages; i++) {
            sources.add(r.source(size, 50 + i));
            landing.add(r.destination(size));
        }
        AtomicInteger next = new AtomicInteger();
        List<DeviceSlice> got = new CopyOnWriteArrayList<>();
        CountDownLatch all = new CountDownLatch(messages);
        AtomicReference<Subscription> consumer = new AtomicReference<>();
        r.rx.receive(len -> landing.get(next.getAndIncrement()).slice(0, len)).subscribe(new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(Subscription s) {
                consumer.set(s);
                s.request(1); // one message, then nothing until the test says so
            }

            @Override
            protected void hookOnNext(DeviceSlice s) {
                got.add(s);
                all.countDown();
            }

            @Override
            protected void hookOnError(Throwable e) {
                // the rig closes the transfers at the end: the receive ends with that
            }
        });
        int copiesBefore = senderHook.toHost.get();
        Disposable sending = Flux.range(0, messages).concatMap(i -> r.tx.send(sources.get(i).slice()))
                .subscribe(null, e -> { });

        awaitTrue(() -> got.size() == 1, "the first message");
        // The sender goes on with the second message until its staging buffers all hold chunks that wait for
        // credits; then it must copy nothing more. A stall is the absence of progress, so after reaching that state
        // the test watches for a while: a slow machine can only hide a sender that runs on, never fail a stalled one.
        awaitTrue(() -> r.tx.stagingInUse() == staging && senderHook.toHost.get() - copiesBefore >= 8 + staging,
                "every staging buffer holding a chunk of the second message");
        Thread.sleep(300);
        int copied = senderHook.toHost.get() - copiesBefore;
        assertThat(copied).as("chunks copied off the device while the receiver asked for nothing more")
                .isLessThanOrEqualTo(8 + staging);
        assertThat(r.tx.stagingInUse()).isEqualTo(staging);
        assertThat(r.rx.receivedInFlight()).isZero();

        consumer.get().request(Long.MAX_VALUE);
        assertThat(all.await(TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < messages; i++) {
            r.assertReceived(got.get(i), 50 + i);
        }
        assertStagingReturned(r);
        sending.dispose();
    }

    // ---- cancellation ----

    @Test
    void cancellingASendMidwayStopsItsChunksAndLeaksNothing() {
        TransferRig r = rig(config(3));
        long size = 64L * CHUNK;
        DeviceBuffer src = r.source(size, 9);
        DeviceBuffer dst = r.destination(size);
        AtomicReference<Throwable> receiveError = new AtomicReference<>();
        CountDownLatch receiveEnded = new CountDownLatch(1);
        r.rx.receiveInto(dst.slice()).subscribe(s -> { }, e -> {
            receiveError.set(e);
            receiveEnded.countDown();
        }, receiveEnded::countDown);
        int copiesBefore = senderHook.toHost.get();
        // Five chunks are copied, the sixth copy is held: the cancel lands in the middle of the message for certain.
        CountDownLatch sixth = senderHook.holdFrom(CopyDirection.TO_HOST, copiesBefore + 6);
        Disposable send = r.tx.send(src.slice()).subscribe(null, e -> { });
        awaitTrue(() -> senderHook.toHost.get() - copiesBefore >= 6, "five chunks copied");

        send.dispose();

        // The receiver learns of the cancel from the abort that closes the message, sent while the copy is held.
        assertThat(await(receiveEnded)).isTrue();
        assertThat(receiveError.get()).isInstanceOf(TransferAbortedException.class);
        sixth.countDown();
        awaitTrue(() -> r.tx.stagingInUse() == 0, "staging buffers back after the cancel");
        int copied = senderHook.toHost.get() - copiesBefore;
        assertThat(copied).as("chunks copied of 64").isLessThan(64);
        awaitTrue(() -> senderMemory.metrics().transfers(TransferOp.SEND, TransferPath.STAGED, Outcome.CANCELLED)
                == 1, "the cancelled send counted");
        assertThat(src.pins()).isZero();

        // The endpoint carries on: the next message arrives whole.
        StepVerifier.create(Mono.when(r.rx.receiveInto(dst.slice()), r.tx.send(src.slice()))).verifyComplete();
        r.assertReceived(dst.slice(), 9);
        assertStagingReturned(r);
    }

    @Test
    void cancellingAReceiveMidwayDropsTheRestOfThatMessageOnly() {
        TransferRig r = rig(config(2));
        long size = 16L * CHUNK;
        DeviceBuffer first = r.source(size, 21);
        DeviceBuffer second = r.source(size, 22);
        DeviceBuffer dst = r.destination(size);
        int before = receiverHook.toDevice.get();
        // Three chunks land, the fourth copy is held until the cancel was asked for: the message is cut midway.
        CountDownLatch fourth = receiverHook.holdFrom(CopyDirection.TO_DEVICE, before + 4);
        Disposable receiving = r.rx.receiveInto(dst.slice()).subscribe(null, e -> { });
        Mono<Void> sentFirst = r.tx.send(first.slice()).cache();
        sentFirst.subscribe();
        awaitTrue(() -> receiverHook.toDevice.get() - before >= 4, "three chunks landed");

        receiving.dispose();
        fourth.countDown();

        // The sender's message still completes: the receiver reads it to its end and drops it.
        StepVerifier.create(sentFirst).expectComplete().verify(TIMEOUT);
        awaitTrue(() -> r.rx.receivedInFlight() == 0 && dst.pins() == 0, "received chunks and destination released");
        StepVerifier.create(Mono.when(r.rx.receiveInto(dst.slice()), r.tx.send(second.slice()))).verifyComplete();
        r.assertReceived(dst.slice(), 22);
        assertStagingReturned(r);
    }

    @Test
    void cancellingAPutOrGetMidwayReturnsItsStaging() {
        TransferRig r = rig(config(2));
        long size = 32L * CHUNK;
        DeviceBuffer src = r.source(size, 31);
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion window = r.serverTransport.memory().register(arena.allocate(size, 4096), Access.REMOTE_READ,
                    Access.REMOTE_WRITE);
            Grant grant = r.pair.server().grant(window.slice(), Access.REMOTE_READ, Access.REMOTE_WRITE);
            // Each transfer is cancelled while the copy of its fourth chunk is held: midway, for certain.
            int before = senderHook.toHost.get();
            CountDownLatch putFourth = senderHook.holdFrom(CopyDirection.TO_HOST, before + 4);
            Disposable put = r.tx.put(src.slice(), grant.remote()).subscribe(null, e -> { });
            awaitTrue(() -> senderHook.toHost.get() - before >= 4, "three chunks copied");
            put.dispose();
            putFourth.countDown();
            awaitTrue(() -> r.tx.stagingInUse() == 0, "put staging back");
            assertThat(senderHook.toHost.get() - before).isLessThan(32);

            int toDevice = senderHook.toDevice.get();
            CountDownLatch getFourth = senderHook.holdFrom(CopyDirection.TO_DEVICE, toDevice + 4);
            Disposable get = r.tx.get(grant.remote(), src.slice()).subscribe(null, e -> { });
            awaitTrue(() -> senderHook.toDevice.get() - toDevice >= 4, "three chunks fetched");
            get.dispose();
            getFourth.countDown();
            awaitTrue(() -> r.tx.stagingInUse() == 0, "get staging back");
            assertThat(senderHook.toDevice.get() - toDevice).isLessThan(32);
            awaitTrue(() -> src.pins() == 0, "device buffer let go");

            StepVerifier.create(r.tx.put(src.slice(), grant.remote())).verifyComplete();
            grant.close();
            window.close();
            window.onClose().block(TIMEOUT);
        }
        assertStagingReturned(r);
    }

    // ---- failures ----

    @Test
    void aCopyFailingInChunkKFailsOnlyItsOwnSend() {
        TransferRig r = rig(config(3));
        long sizeA = 20L * CHUNK;
        long sizeB = 10L * CHUNK + 5;
        DeviceBuffer a = r.source(sizeA, 41);
        DeviceBuffer b = r.source(sizeB, 42);
        DeviceBuffer dstA = r.destination(sizeA);
        DeviceBuffer dstB = r.destination(sizeB);
        int k = 5;
        senderHook.failNth(CopyDirection.TO_HOST, senderHook.toHost.get() + k);

        AtomicReference<Throwable> sendError = new AtomicReference<>();
        CountDownLatch sendEnded = new CountDownLatch(1);
        r.tx.send(a.slice()).subscribe(v -> { }, e -> {
            sendError.set(e);
            sendEnded.countDown();
        }, sendEnded::countDown);
        StepVerifier.create(r.rx.receiveInto(dstA.slice())).expectError(TransferAbortedException.class)
                .verify(TIMEOUT);
        assertThat(await(sendEnded)).isTrue();
        assertThat(sendError.get()).isInstanceOf(DeviceMemoryException.class);
        assertStagingReturned(r);
        // The fault was one copy: sending the same memory again passes.
        StepVerifier.create(Mono.when(r.rx.receiveInto(dstA.slice()), r.tx.send(a.slice()))).verifyComplete();
        r.assertReceived(dstA.slice(), 41);

        // Two sends under way at once, the first hit by a failed copy: the second is untouched.
        senderHook.failNth(CopyDirection.TO_HOST, senderHook.toHost.get() + k);
        AtomicReference<Throwable> firstError = new AtomicReference<>();
        Mono<Void> first = r.tx.send(a.slice()).doOnError(firstError::set).onErrorResume(e -> Mono.empty());
        Mono<Void> second = r.tx.send(b.slice());
        Mono<Void> receiving = r.rx.receiveInto(dstA.slice()).then().onErrorResume(TransferAbortedException.class,
                e -> Mono.empty()).then(r.rx.receiveInto(dstB.slice()).then());
        StepVerifier.create(Mono.when(receiving, first, second)).verifyComplete();
        assertThat(firstError.get()).isInstanceOf(DeviceMemoryException.class);
        assertThat(((DeviceMemoryException) firstError.get()).errorName()).isEqualTo("standInErrorInjected");
        assertThat(((DeviceMemoryException) firstError.get()).nativeCode()).isEqualTo(77);
        r.assertReceived(dstB.slice(), 42);
        assertThat(senderMemory.metrics().transfers(TransferOp.SEND, TransferPath.STAGED, Outcome.ERROR))
                .isEqualTo(2);
        assertStagingReturned(r);
    }

    @Test
    void aCopyFailingOnTheReceiverFailsThatMessageOnly() {
        TransferRig r = rig(config(2));
        long size = 12L * CHUNK;
        DeviceBuffer first = r.source(size, 61);
        DeviceBuffer second = r.source(size, 62);
        DeviceBuffer dst = r.destination(size);
        receiverHook.failNth(CopyDirection.TO_DEVICE, receiverHook.toDevice.get() + 4);

        StepVerifier.create(Mono.when(r.rx.receiveInto(dst.slice()), r.tx.send(first.slice())))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(DeviceMemoryException.class)
                        .hasMessageContaining("standInErrorInjected"))
                .verify(TIMEOUT);
        StepVerifier.create(Mono.when(r.rx.receiveInto(dst.slice()), r.tx.send(second.slice()))).verifyComplete();
        r.assertReceived(dst.slice(), 62);
        assertStagingReturned(r);
    }

    @Test
    void putAndGetCopyFailuresFailOnlyThatTransfer() {
        TransferRig r = rig(config(2));
        long size = 8L * CHUNK;
        DeviceBuffer src = r.source(size, 71);
        DeviceBuffer back = r.track(senderMemory.allocate(size));
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion window = r.serverTransport.memory().register(arena.allocate(size, 4096), Access.REMOTE_READ,
                    Access.REMOTE_WRITE);
            Grant grant = r.pair.server().grant(window.slice(), Access.REMOTE_READ, Access.REMOTE_WRITE);
            senderHook.failNth(CopyDirection.TO_HOST, senderHook.toHost.get() + 3);
            StepVerifier.create(r.tx.put(src.slice(), grant.remote())).expectError(DeviceMemoryException.class)
                    .verify(TIMEOUT);
            StepVerifier.create(r.tx.put(src.slice(), grant.remote())).verifyComplete();
            senderHook.failNth(CopyDirection.TO_DEVICE, senderHook.toDevice.get() + 2);
            StepVerifier.create(r.tx.get(grant.remote(), back.slice())).expectError(DeviceMemoryException.class)
                    .verify(TIMEOUT);
            StepVerifier.create(r.tx.get(grant.remote(), back.slice())).verifyComplete();
            TransferRig.assertPattern(r.txCopies, back.slice(), 71);
            grant.close();
            window.close();
            window.onClose().block(TIMEOUT);
        }
        assertStagingReturned(r);
    }

    @Test
    void aMessageLargerThanItsDestinationFailsThatReceiveOnly() {
        TransferRig r = rig(config(2));
        DeviceBuffer big = r.source(4L * CHUNK, 81);
        DeviceBuffer small = r.source(CHUNK, 82);
        DeviceBuffer dst = r.destination(2L * CHUNK);

        StepVerifier.create(Mono.when(r.rx.receiveInto(dst.slice()), r.tx.send(big.slice())))
                .expectError(MessageTooLargeException.class).verify(TIMEOUT);
        StepVerifier.create(Mono.when(r.rx.receiveInto(dst.slice()), r.tx.send(small.slice()))).verifyComplete();
        r.assertReceived(dst.slice(0, CHUNK), 82);
        assertStagingReturned(r);
    }

    @Test
    void aDeviceBufferClosedDuringATransferIsFreedAfterIt() {
        TransferRig r = rig(config(2));
        long size = 16L * CHUNK;
        DeviceBuffer src = senderMemory.allocate(size);
        DeviceBuffer dst = r.destination(size);
        // The third copy is held until the buffer was closed: the transfer is under way when it closes.
        int before = senderHook.toHost.get();
        CountDownLatch third = senderHook.holdFrom(CopyDirection.TO_HOST, before + 3);
        Mono<Void> sent = r.tx.send(src.slice()).cache();
        sent.subscribe();
        Mono<DeviceSlice> landed = r.rx.receiveInto(dst.slice()).cache();
        landed.subscribe();
        awaitTrue(() -> senderHook.toHost.get() - before >= 3, "copies under way");

        src.close();

        assertThat(src.isOpen()).isFalse();
        assertThat(senderMemory.stats().buffers()).as("still allocated while copies use it").isPositive();
        third.countDown();
        StepVerifier.create(sent).verifyComplete();
        StepVerifier.create(landed).expectNextCount(1).verifyComplete();
        src.onFree().block(TIMEOUT);
        StepVerifier.create(r.tx.send(src.slice())).expectError(dev.rivulet.core.error.InvalidMemoryException.class)
                .verify(TIMEOUT);
        assertStagingReturned(r);
    }

    @Test
    void closingTheTransfersFailsWhatIsUnderWayAndReturnsEverything() {
        TransferRig r = rig(config(2));
        long size = 32L * CHUNK;
        DeviceBuffer src = r.source(size, 91);
        senderHook.delayNanos = 2_000_000;
        AtomicReference<Throwable> error = new AtomicReference<>();
        r.tx.send(src.slice()).subscribe(v -> { }, error::set);
        // Nobody receives: the two staging buffers fill and wait for credits that never come.
        awaitTrue(() -> senderHook.toHost.get() >= 2, "copies under way");

        r.tx.dispose();

        r.tx.onClose().block(TIMEOUT);
        assertThat(error.get()).isInstanceOf(dev.rivulet.core.error.ResourceClosedException.class);
        assertThat(r.tx.stagingInUse()).isZero();
        assertThat(src.pins()).isZero();
        StepVerifier.create(r.tx.send(src.slice())).expectError(dev.rivulet.core.error.ResourceClosedException.class)
                .verify(TIMEOUT);
    }

    @Test
    void disposingTheTransportClosesTheTransfers() {
        TransferRig r = rig(config(2));
        DeviceBuffer src = r.source(4L * CHUNK, 95);

        r.clientTransport.disposeLater().block(TIMEOUT);

        r.tx.onClose().block(TIMEOUT);
        assertThat(r.tx.isDisposed()).isTrue();
        StepVerifier.create(r.tx.send(src.slice())).expectError(dev.rivulet.core.error.ResourceClosedException.class)
                .verify(TIMEOUT);
    }

    private static boolean await(CountDownLatch l) {
        try {
            return l.await(TIMEOUT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
