package dev.rivulet.core.memory;

import dev.rivulet.core.error.InvalidMemoryException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Lent views: valid on the lending thread during the loan, owned once retained, unusable otherwise. */
class LendingRingTest {

    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;

    private final MemoryDomain domain = new MemoryDomain("lending", (seg, access, key) ->
            new NativeRegistration(key, seg.address(), MemorySegment.NULL, new byte[0], () -> { }));
    private final LendingRing ring = new LendingRing();

    @AfterEach
    void close() {
        LeakDetector.disable();
        domain.close();
    }

    /** A frame of {@code records} 8-byte records numbered from {@code first}, each at offset {@code 16 * i}. */
    private Buffer frame(long first, int records) {
        Buffer f = domain.allocate(16 * records);
        for (int i = 0; i < records; i++) {
            f.capacitySegment().set(LONG, 16L * i, first + i);
        }
        return f;
    }

    private static void expectInvalid(Buffer b) {
        assertThatThrownBy(() -> b.get(LONG, 0)).isInstanceOf(InvalidMemoryException.class);
        assertThatThrownBy(b::segment).isInstanceOf(InvalidMemoryException.class);
        assertThatThrownBy(b::toArray).isInstanceOf(InvalidMemoryException.class);
        assertThatThrownBy(b::retain).isInstanceOf(InvalidMemoryException.class);
    }

    private static void onOtherThread(Consumer<Buffer> access, Buffer b) throws Exception {
        CompletableFuture<Void> f = CompletableFuture.runAsync(() -> access.accept(b));
        try {
            f.get(10, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception x ? x : new RuntimeException(e.getCause());
        }
    }

    @Test
    void aLentViewReadsTheRecordInPlaceWithBoundsOfItsOwn() {
        Buffer f = frame(40, 2);
        Buffer v = ring.lend(f, 16, 8);
        assertThat(v.get(LONG, 0)).isEqualTo(41);
        assertThat(v.length()).isEqualTo(8);
        assertThat(v.capacity()).isEqualTo(8);
        assertThat(v.address()).isEqualTo(f.address() + 16);
        assertThat(v.segment().byteSize()).isEqualTo(8);
        assertThatThrownBy(() -> v.get(LONG, 1)).isInstanceOf(IndexOutOfBoundsException.class);
        assertThatThrownBy(() -> v.get(ValueLayout.JAVA_BYTE, 8)).isInstanceOf(IndexOutOfBoundsException.class);
        byte[] copy = new byte[8];
        v.copyTo(0, copy, 0, 8);
        assertThat(MemorySegment.ofArray(copy).get(LONG, 0)).isEqualTo(41);
        assertThat(ring.giveBack(v)).isTrue();
        f.release();
    }

    @Test
    void everyAccessorFailsOnceTheLoanEnded() {
        Buffer f = frame(7, 1);
        Buffer v = ring.lend(f, 0, 8);
        ring.giveBack(v);
        f.release();
        expectInvalid(v);
        assertThatThrownBy(v::release).isInstanceOf(InvalidMemoryException.class);
    }

    @Test
    void anotherThreadCannotUseALentViewEvenDuringItsLoan() {
        Buffer f = frame(7, 1);
        Buffer v = ring.lend(f, 0, 8);
        assertThatThrownBy(() -> onOtherThread(b -> b.get(LONG, 0), v)).isInstanceOf(InvalidMemoryException.class)
                .hasMessageContaining("lent to " + Thread.currentThread().getName());
        assertThatThrownBy(() -> onOtherThread(Buffer::retain, v)).isInstanceOf(InvalidMemoryException.class);
        assertThatThrownBy(() -> onOtherThread(Buffer::release, v)).isInstanceOf(InvalidMemoryException.class);
        assertThat(v.get(LONG, 0)).as("still fine on its own thread").isEqualTo(7);
        ring.giveBack(v);
        f.release();
    }

    @Test
    void aViewIsLentAgainOnlyAfterAFullRingOfLaterMessages() {
        Buffer f = frame(0, 1);
        Buffer first = ring.lend(f, 0, 8);
        ring.giveBack(first);
        for (int i = 1; i < LendingRing.SIZE; i++) {
            Buffer v = ring.lend(f, 0, 8);
            assertThat(v).isNotSameAs(first);
            expectInvalid(first);
            ring.giveBack(v);
        }
        Buffer again = ring.lend(f, 0, 8);
        assertThat(again).as("reused in the order lent").isSameAs(first);
        ring.giveBack(again);
        f.release();
    }

    @Test
    void aRetainedViewIsLentAgainOnceReleasedAndReplacedWhileStillHeld() {
        Buffer f = frame(0, 1);
        f.length(8);
        Buffer kept = ring.lend(f, 0, 8);
        kept.retain();
        ring.giveBack(kept);
        Buffer released = ring.lend(f, 0, 8);
        released.retain();
        ring.giveBack(released);
        released.release(); // the subscriber is done with it
        expectInvalid(released);
        for (int i = 2; i < LendingRing.SIZE; i++) {
            ring.giveBack(ring.lend(f, 0, 8));
        }
        Buffer next = ring.lend(f, 0, 8);
        assertThat(next).as("a view still held is not lent again").isNotSameAs(kept);
        assertThat(kept.get(LONG, 0)).isZero();
        ring.giveBack(next);
        Buffer again = ring.lend(f, 0, 8);
        assertThat(again).as("a retained view released is lent again: no garbage per retained message")
                .isSameAs(released);
        assertThat(again.get(LONG, 0)).isZero();
        again.retain();
        ring.giveBack(again);
        again.release();
        kept.release();
        f.release();
    }

    @Test
    void aStaleViewFailsOnAnotherThreadEvenWhileItsObjectIsLentAgain() throws Exception {
        Buffer f = frame(0, 1);
        Buffer stale = ring.lend(f, 0, 8);
        ring.giveBack(stale);
        for (int i = 1; i < LendingRing.SIZE; i++) {
            ring.giveBack(ring.lend(f, 0, 8));
        }
        Buffer relent = ring.lend(f, 0, 8);
        assertThat(relent).isSameAs(stale);
        assertThatThrownBy(() -> onOtherThread(b -> b.get(LONG, 0), stale))
                .isInstanceOf(InvalidMemoryException.class);
        ring.giveBack(relent);
        f.release();
    }

    @Test
    void retainingARecordCopiesItIntoAnOwnedBufferUsableAnywhere() throws Exception {
        Buffer f = frame(10, 2);
        long before = domain.buffers().outstanding();
        Buffer v = ring.lend(f, 16, 8);
        assertThat(v.retain()).isSameAs(v);
        assertThat(domain.buffers().outstanding()).as("one pooled copy").isEqualTo(before + 1);
        assertThat(ring.giveBack(v)).isTrue();
        f.capacitySegment().set(LONG, 16, -1); // the frame is reused: the copy is not affected
        f.release();
        onOtherThread(b -> assertThat(b.get(LONG, 0)).isEqualTo(11), v);
        assertThat(v.refCnt()).isEqualTo(1);
        Buffer next = ring.lend(frame(99, 1), 0, 8);
        assertThat(next).as("a retained view left the ring").isNotSameAs(v);
        assertThat(v.get(LONG, 0)).isEqualTo(11);
        ring.giveBack(next);
        assertThat(v.release()).isTrue();
        assertThat(domain.buffers().outstanding()).isEqualTo(before);
        expectInvalid(v);
    }

    @Test
    void retainingAWholeMessageKeepsItsReceiveBufferInsteadOfCopying() {
        Buffer whole = frame(5, 1);
        whole.length(8);
        long before = domain.buffers().outstanding();
        Buffer v = ring.lend(whole, 0, 8);
        v.retain();
        assertThat(domain.buffers().outstanding()).as("no copy").isEqualTo(before);
        assertThat(v.address()).isEqualTo(whole.address());
        ring.giveBack(v);
        whole.release(); // the receiver's reference: the view's keeps the memory
        assertThat(v.get(LONG, 0)).isEqualTo(5);
        v.release();
        assertThat(domain.buffers().outstanding()).isEqualTo(before - 1);
    }

    @Test
    void aBorrowerThatReleasesWithoutRetainingIsToldApartAndChangesNothingElse() {
        Buffer f = frame(3, 1);
        Buffer v = ring.lend(f, 0, 8);
        v.release();
        assertThat(ring.giveBack(v)).isFalse();
        assertThat(f.refCnt()).as("the source is the lender's").isEqualTo(1);
        f.release();
    }

    @Test
    void paranoidDetectionNeverLendsAViewObjectTwice() {
        LeakDetector.enable(LeakDetector.Level.PARANOID);
        Buffer f = frame(0, 1);
        Buffer first = ring.lend(f, 0, 8);
        ring.giveBack(first);
        for (int i = 0; i < 2 * LendingRing.SIZE; i++) {
            Buffer v = ring.lend(f, 0, 8);
            assertThat(v).isNotSameAs(first);
            ring.giveBack(v);
        }
        expectInvalid(first);
        f.release();
    }
}
