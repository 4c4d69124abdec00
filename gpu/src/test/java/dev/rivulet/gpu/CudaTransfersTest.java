package dev.rivulet.gpu;

import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.gpu.cuda.CudaMemory;
import dev.rivulet.gpu.metrics.GpuMetrics.Outcome;
import dev.rivulet.gpu.metrics.GpuMetrics.TransferOp;
import jcuda.runtime.JCuda;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static dev.rivulet.gpu.StagedPipelineContract.awaitTrue;
import static dev.rivulet.gpu.TransferRig.TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * CUDA device memory through the whole pipeline: device → transport → device round trips verified after copying
 * back, a slow receiver, and a cancellation that leaves no staging buffer, device memory or event behind. Skipped,
 * with the reason, where no CUDA driver is found.
 */
class CudaTransfersTest {

    abstract static class OnTransport {
        private final List<AutoCloseable> closeables = new ArrayList<>();
        CudaMemory memory;
        long freeBefore;

        abstract TestTransport transport();

        @BeforeEach
        void setUp() {
            Availability cuda = CudaMemory.availability();
            Assumptions.assumeTrue(cuda.available(), () -> "CUDA is unavailable here: " + cuda.reason());
            LeakDetector.enable();
            LeakDetector.reset();
            StepVerifier.setDefaultTimeout(TIMEOUT);
            memory = CudaMemory.open(0);
            freeBefore = deviceFree();
        }

        @AfterEach
        void tearDown() throws Exception {
            if (memory == null) {
                return;
            }
            try {
                for (int i = closeables.size() - 1; i >= 0; i--) {
                    closeables.get(i).close();
                }
                LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
                awaitTrue(() -> memory.stats().buffers() == 0, "device buffers freed");
                assertThat(memory.stats().events()).isZero();
                assertThat(memory.stats().streams()).isZero();
                memory.close();
                // Device-wide, so other processes move it too; a leaked 256 MiB buffer would not hide in 64 MiB.
                assertThat(freeBefore - deviceFree()).as("device memory not given back").isLessThan(64L << 20);
            } finally {
                LeakDetector.disable();
                StepVerifier.resetDefaultTimeout();
            }
        }

        static long deviceFree() {
            long[] free = new long[1];
            long[] total = new long[1];
            JCuda.cudaMemGetInfo(free, total);
            return free[0];
        }

        TransferRig rig(DeviceTransferConfig config) {
            TransferRig r = TransferRig.open(transport(), memory, memory, config);
            closeables.add(r);
            return r;
        }

        @ParameterizedTest(name = "{0} bytes")
        @ValueSource(longs = {1 << 10, 1 << 20, 256 << 20})
        void deviceToDeviceRoundTripByChecksum(long size) {
            TransferRig r = rig(DeviceTransferConfig.defaults());
            DeviceBuffer src = r.source(size, size);
            DeviceBuffer dst = r.destination(size);

            StepVerifier.create(Mono.when(r.rx.receiveInto(dst.slice()), r.tx.send(src.slice()))).verifyComplete();

            r.assertReceived(dst.slice(), size);
            assertThat(memory.metrics().transfers(TransferOp.RECEIVE, TransferPath.STAGED, Outcome.SUCCESS))
                    .isEqualTo(1);
            StagedPipelineContract.assertStagingReturned(r);
        }

        @Test
        void putAndGetOfDeviceMemory() {
            TransferRig r = rig(DeviceTransferConfig.defaults());
            long size = 8L << 20;
            DeviceBuffer src = r.source(size, 3);
            DeviceBuffer back = r.track(memory.allocate(size));
            try (Arena arena = Arena.ofShared()) {
                MemoryRegion window = r.serverTransport.memory().register(arena.allocate(size, 4096),
                        Access.REMOTE_READ, Access.REMOTE_WRITE);
                Grant grant = r.pair.server().grant(window.slice(), Access.REMOTE_READ, Access.REMOTE_WRITE);
                StepVerifier.create(r.tx.put(src.slice(), grant.remote())
                        .then(r.tx.get(grant.remote(), back.slice()))).verifyComplete();
                TransferRig.assertPattern(r.txCopies, back.slice(), 3);
                TransferPath path = r.tx.capabilities().rmaPath();
                assertThat(memory.metrics().transfers(TransferOp.PUT, path, Outcome.SUCCESS)).isEqualTo(1);
                if (path == TransferPath.STAGED) {
                    assertThat(r.tx.capabilities().directReason()).isNotBlank();
                }
                grant.close();
                window.close();
                window.onClose().block(TIMEOUT);
            }
        }

        @Test
        void stagingBuffersAbove1MiBAndSmallMessagesInPiecesByChecksum() {
            TransferRig r = rig(DeviceTransferConfig.defaults().chunkSize(4 << 20).stagingBuffers(2)
                    .paths(PathSelection.STAGED));
            long size = (24L << 20) + 3; // puts and gets in 4 MiB chunks from staging buffers pinned once
            DeviceBuffer src = r.source(size, 5);
            DeviceBuffer back = r.track(memory.allocate(size));
            DeviceBuffer dst = r.destination(1 << 20);
            r.putAndGetBack(src.slice(), back.slice());
            TransferRig.assertPattern(r.txCopies, back.slice(), 5);
            // A 1 MiB message goes in 256 KiB pieces whatever the largest chunk.
            StepVerifier.create(Mono.when(r.rx.receiveInto(dst.slice()), r.tx.send(src.slice(0, 1 << 20))))
                    .verifyComplete();
            r.assertReceived(dst.slice(), 5);
            StagedPipelineContract.assertStagingReturned(r);
        }

        @Test
        void aSlowReceiverStallsTheSendersDeviceCopies() {
            int staging = 2;
            TransferRig r = rig(DeviceTransferConfig.defaults().chunkSize(256 << 10).stagingBuffers(staging));
            int messages = 4;
            long size = 8L << 20;
            List<DeviceBuffer> sources = new ArrayList<>();
            List<DeviceBuffer> landing = new ArrayList<>();
            for (int i = 0; i < messages; i++) {
                sources.add(r.source(size, 10 + i));
                landing.add(r.destination(size));
            }
            AtomicInteger next = new AtomicInteger();
            List<DeviceSlice> got = new CopyOnWriteArrayList<>();
            AtomicReference<Subscription> consumer = new AtomicReference<>();
            r.rx.receive(len -> landing.get(next.getAndIncrement()).slice(0, len)).subscribe(new BaseSubscriber<>() {
                @Override
                protected void hookOnSubscribe(Subscription s) {
                    consumer.set(s);
                    s.request(1);
                }

                @Override
                protected void hookOnNext(DeviceSlice s) {
                    got.add(s);
                }

                @Override
                protected void hookOnError(Throwable e) {
                    // the rig closes the transfers at the end: the receive ends with that
                }
            });
            long copiesBefore = memory.metrics().copies(CopyDirection.TO_HOST);
            Disposable sending = Flux.range(0, messages).concatMap(i -> r.tx.send(sources.get(i).slice()))
                    .subscribe(null, e -> { });
            awaitTrue(() -> got.size() == 1, "the first message");
            long last;
            do {
                last = memory.metrics().copies(CopyDirection.TO_HOST);
                sleep(300);
            } while (memory.metrics().copies(CopyDirection.TO_HOST) != last);
            // Sender and receiver share the memory type here, so its copy count is the sender's alone only
            // because the receiver copies nothing while it asks for nothing.
            assertThat(last - copiesBefore).isLessThanOrEqualTo(32 + staging);
            assertThat(r.tx.stagingInUse()).isEqualTo(staging);

            consumer.get().request(Long.MAX_VALUE);
            awaitTrue(() -> got.size() == messages, "every message");
            for (int i = 0; i < messages; i++) {
                r.assertReceived(got.get(i), 10 + i);
            }
            sending.dispose();
            StagedPipelineContract.assertStagingReturned(r);
        }

        @Test
        void cancellingMidwayLeaksNothing() {
            TransferRig r = rig(DeviceTransferConfig.defaults().chunkSize(256 << 10).stagingBuffers(2));
            long size = 256L << 20;
            DeviceBuffer src = r.source(size, 99);
            DeviceBuffer dst = r.destination(size);
            AtomicReference<Throwable> received = new AtomicReference<>();
            r.rx.receiveInto(dst.slice()).subscribe(s -> { }, received::set);
            long before = memory.metrics().copies(CopyDirection.TO_DEVICE);
            Disposable send = r.tx.send(src.slice()).subscribe(null, e -> { });
            awaitTrue(() -> memory.metrics().copies(CopyDirection.TO_DEVICE) - before >= 4, "chunks landed");

            send.dispose();

            awaitTrue(() -> received.get() != null, "the receiver told");
            assertThat(received.get()).isInstanceOf(TransferAbortedException.class);
            StagedPipelineContract.assertStagingReturned(r);
            awaitTrue(() -> src.pins() == 0 && dst.pins() == 0, "device buffers let go");
        }

        private static void sleep(long ms) {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Nested
    class Local extends OnTransport {
        @Override
        TestTransport transport() {
            return TestTransport.LOCAL;
        }
    }

    @Nested
    class FabricTcp extends OnTransport {
        @Override
        TestTransport transport() {
            return TestTransport.LIBFABRIC_TCP;
        }
    }
}
