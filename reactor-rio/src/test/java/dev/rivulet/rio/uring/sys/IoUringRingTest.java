package dev.rivulet.rio.uring.sys;

import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_NOP;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_READ_FIXED;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_OP_SEND;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_SETUP_COOP_TASKRUN;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_SETUP_SINGLE_ISSUER;
import static dev.rivulet.rio.uring.sys.IoUringConstants.IORING_SETUP_SUBMIT_ALL;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.rivulet.core.spi.Availability;
import dev.rivulet.core.sys.Descriptors;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.core.sys.ErrnoException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A real ring on the running kernel: setup, NOP round trips, the SQ bound, probing, flag fallback. */
@Timeout(value = 60, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class IoUringRingTest {

    private static final long FIVE_SECONDS = Duration.ofSeconds(5).toNanos();

    record Completion(long userData, int res, int flags) {
    }

    @BeforeAll
    static void requireIoUring() {
        Availability a = IoUring.availability();
        if (!a.available()) {
            System.out.println("io_uring tests skipped: " + a.reason());
        }
        assumeTrue(a.available(), a.reason());
    }

    @Test
    void nopRoundTripReturnsItsUserData() {
        try (IoUring ring = IoUring.open(8)) {
            ring.nextSqe().prepNop().userData(0xCAFE_BABE_1234_5678L);

            assertThat(ring.submitAndWait(1, FIVE_SECONDS)).isEqualTo(1);

            List<Completion> seen = new ArrayList<>();
            ring.forEachCompletion((ud, res, flags) -> seen.add(new Completion(ud, res, flags)));
            assertThat(seen).containsExactly(new Completion(0xCAFE_BABE_1234_5678L, 0, 0));
            assertThat(ring.forEachCompletion((ud, res, flags) -> seen.add(null))).as("consumed once").isZero();
        }
    }

    @Test
    void indicesWrapAroundASmallRingManyTimes() {
        try (IoUring ring = IoUring.open(4)) {
            long[] next = {0};
            int total = 1000;
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            for (int i = 0; i < total; ) {
                assertThat(System.nanoTime() - deadline).as("within 20 s").isNegative();
                var sqe = ring.nextSqe();
                if (sqe != null) {
                    sqe.prepNop().userData(i++);
                    continue;
                }
                ring.submitAndWait(1, FIVE_SECONDS);
                ring.forEachCompletion((ud, res, flags) -> assertThat(ud).isEqualTo(next[0]++));
            }
            Rings.reapUntil(ring, () -> next[0] == total,
                    (ud, res, flags) -> assertThat(ud).isEqualTo(next[0]++), Duration.ofSeconds(10), "NOPs");
            assertThat(next[0]).isEqualTo(total);
        }
    }

    @Test
    void nextSqeReturnsNullOnceEverySlotIsTaken() {
        try (IoUring ring = IoUring.open(4)) {
            for (int i = 0; i < ring.sqEntries(); i++) {
                assertThat(ring.nextSqe()).isNotNull();
            }
            assertThat(ring.nextSqe()).isNull();
            assertThat(ring.sqSpaceLeft()).isZero();
        }
    }

    @Test
    void nextSqeHandsOutAZeroedSlot() {
        try (IoUring ring = IoUring.open(1)) {
            ring.nextSqe().prepNop().userData(9).bufIndex(7).addr3(123).fileIndex(5).len(42);
            ring.submitAndWait(1, FIVE_SECONDS);
            ring.forEachCompletion((ud, res, flags) -> { });

            IoUringSqe reused = ring.nextSqe(); // the same slot: the ring has one
            assertThat(reused.segment().toArray(ValueLayout.JAVA_BYTE)).containsOnly((byte) 0);
        }
    }

    @Test
    void probeReportsNopSendAndReadFixed() {
        try (IoUring ring = IoUring.open(2)) {
            IoUringProbe probe = ring.probe();
            System.out.println("io_uring probe: " + probe + ", features=0x" + Integer.toHexString(ring.features()));

            assertThat(probe.isSupported(IORING_OP_NOP)).isTrue();
            assertThat(probe.isSupported(IORING_OP_SEND)).isTrue();
            assertThat(probe.isSupported(IORING_OP_READ_FIXED)).isTrue();
            assertThat(probe.isSupported(255)).isFalse();
        }
    }

    @Test
    void optionalFlagsTheKernelRefusesAreDropped() {
        int unknownFlag = 1 << 30; // no kernel defines this setup flag
        int wanted = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SUBMIT_ALL;
        try (IoUring ring = IoUring.open(8, 0, wanted | unknownFlag)) {
            System.out.println("granted setup flags: 0x" + Integer.toHexString(ring.setupFlags()));

            assertThat(ring.setupFlags() & unknownFlag).isZero();
            ring.nextSqe().prepNop().userData(5);
            assertThat(ring.submitAndWait(1, FIVE_SECONDS)).isEqualTo(1);
        }
    }

    @Test
    void aRequiredFlagTheKernelRefusesFailsWithEinval() {
        assertThatThrownBy(() -> IoUring.open(8, 1 << 30, 0))
                .isInstanceOfSatisfying(ErrnoException.class, e -> {
                    assertThat(e.errno()).isEqualTo(Errno.EINVAL);
                    assertThat(e.function()).isEqualTo("io_uring_setup");
                });
    }

    @Test
    void singleIssuerRingRejectsSubmissionFromAnotherThread() throws InterruptedException {
        try (IoUring ring = IoUring.open(8, 0, IORING_SETUP_SINGLE_ISSUER)) {
            assumeTrue((ring.setupFlags() & IORING_SETUP_SINGLE_ISSUER) != 0, "kernel has no SINGLE_ISSUER");
            ring.nextSqe().prepNop().userData(1);
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread other = Thread.ofPlatform().start(() -> {
                try {
                    ring.submit();
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            other.join(5_000);

            assertThat(failure.get()).isInstanceOfSatisfying(ErrnoException.class,
                    e -> assertThat(e.errno()).isEqualTo(Errno.EEXIST));
            assertThat(ring.submitAndWait(1, FIVE_SECONDS)).as("the owner still submits").isEqualTo(1);
        }
    }

    @Test
    void fixedReadOutsideTheRegisteredBufferCompletesWithEfault() {
        int efd = Descriptors.eventfd(1, Descriptors.EFD_CLOEXEC);
        try (Arena arena = Arena.ofConfined(); IoUring ring = IoUring.open(2)) {
            MemorySegment registered = arena.allocate(4096, 4096);
            MemorySegment elsewhere = arena.allocate(4096, 4096);
            ring.registerBuffers(registered);
            List<Completion> seen = new ArrayList<>();

            ring.nextSqe().prepReadFixed(efd, elsewhere.asSlice(0, 8), 0, 0).userData(11);
            Rings.reapUntil(ring, () -> !seen.isEmpty(),
                    (ud, res, flags) -> seen.add(new Completion(ud, res, flags)), Duration.ofSeconds(5), "READ_FIXED");

            assertThat(seen).containsExactly(new Completion(11, -Errno.EFAULT, 0));
        } finally {
            Descriptors.closeOrThrow(efd);
        }
    }

    @Test
    void sqpollRingSubmitsWithoutEnteringAndWakesItsSleepingPoller() throws InterruptedException {
        IoUring ring;
        try {
            ring = IoUring.open(8, IoUringConstants.IORING_SETUP_SQPOLL, 0);
        } catch (ErrnoException e) {
            assumeTrue(false, "SQPOLL refused here: " + e.getMessage());
            return;
        }
        try (ring) {
            List<Completion> seen = new ArrayList<>();
            ring.nextSqe().prepNop().userData(1);
            Rings.reapUntil(ring, () -> seen.size() == 1,
                    (ud, res, flags) -> seen.add(new Completion(ud, res, flags)), Duration.ofSeconds(5), "NOP 1");

            // The poller sleeps after sq_thread_idle (default 1 s) and then needs IORING_ENTER_SQ_WAKEUP.
            long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
            while ((ring.sqRingFlags() & IoUringConstants.IORING_SQ_NEED_WAKEUP) == 0
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(ring.sqRingFlags() & IoUringConstants.IORING_SQ_NEED_WAKEUP).as("poller asleep").isNotZero();
            ring.nextSqe().prepNop().userData(2);
            Rings.reapUntil(ring, () -> seen.size() == 2,
                    (ud, res, flags) -> seen.add(new Completion(ud, res, flags)), Duration.ofSeconds(5), "NOP 2");

            assertThat(seen).extracting(Completion::userData).containsExactly(1L, 2L);
        }
    }

    @Test
    void failedSystemCallsCarryErrnoAndLibcText() {
        int r = IoUringSyscalls.enter(-1, 0, 0, 0, MemorySegment.NULL, 0);
        assertThat(r).isEqualTo(-Errno.EBADF);

        assertThatThrownBy(() -> ErrnoException.check("io_uring_enter", r))
                .isInstanceOf(ErrnoException.class)
                .hasMessage("io_uring_enter failed: EBADF (Bad file descriptor)");
    }

    @Test
    void closedRingRefusesFurtherUse() {
        IoUring ring = IoUring.open(2);
        IoUringSqe sqe = ring.nextSqe();
        ring.close();
        ring.close(); // idempotent

        assertThatThrownBy(() -> sqe.userData(1)).isInstanceOf(IllegalStateException.class);
    }
}
