package dev.rivulet.rio.shm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The record ring and the staging pool on their own: wrap-around, record alignment, a writer and a reader on two
 * threads, what a reader sees of a record once its tail is published, and positions a hostile peer could write.
 */
@Timeout(60)
class RecordRingTest {

    private static final int CAPACITY = 4096;

    private record Rec(int kind, long word, byte[] payload) {
    }

    private static RecordRing ring(Arena arena, int capacity) {
        return new RecordRing(arena.allocate(RecordRing.bytesFor(capacity), 4096), capacity);
    }

    private static List<Rec> drain(RingReader r) {
        List<Rec> got = new ArrayList<>();
        r.read((kind, word, data, offset, length) -> {
            got.add(new Rec(kind, word, data.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE)));
            return true;
        }, Integer.MAX_VALUE);
        return got;
    }

    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    private static boolean write(RingWriter w, int kind, long word, byte[] payload) {
        long at = w.claim(kind, word, payload.length);
        if (at < 0) {
            return false;
        }
        MemorySegment.copy(payload, 0, w.data(), ValueLayout.JAVA_BYTE, at, payload.length);
        return true;
    }

    @Test
    void recordsAreSixteenByteAlignedAndNothingIsVisibleBeforeThePublish() {
        try (Arena arena = Arena.ofConfined()) {
            RecordRing ring = ring(arena, CAPACITY);
            RingWriter w = new RingWriter(ring);
            RingReader r = new RingReader(ring);
            long first = w.claim(1, 7, 1);
            long second = w.claim(2, 8, 17);
            assertThat(first).isEqualTo(RecordRing.RECORD_HEADER);
            assertThat(second).as("a 1-byte record takes 32 bytes").isEqualTo(32 + RecordRing.RECORD_HEADER);
            assertThat(w.tail()).as("17 bytes of payload round up to 48").isEqualTo(32 + 48);
            assertThat(r.hasRecords()).isFalse();
            assertThat(drain(r)).isEmpty();
            assertThat(w.publish()).isTrue();
            assertThat(w.publish()).as("nothing new to publish").isFalse();
            List<Rec> got = drain(r);
            assertThat(got).extracting(Rec::kind).containsExactly(1, 2);
            assertThat(got).extracting(Rec::word).containsExactly(7L, 8L);
            assertThat(got.get(1).payload()).hasSize(17);
            assertThat(w.drained()).isTrue();
        }
    }

    @Test
    void aRecordThatDoesNotFitBeforeTheEndWrapsBehindAPadThatTheReaderSkips() {
        try (Arena arena = Arena.ofConfined()) {
            RecordRing ring = ring(arena, CAPACITY);
            RingWriter w = new RingWriter(ring);
            RingReader r = new RingReader(ring);
            int seq = 0;
            // 1000 bytes of payload is 1024 per record: four fill the ring exactly, the fifth has to wait.
            for (int lap = 0; lap < 40; lap++) {
                int size = 1000 + lap % 3 * 200; // sizes that do not divide the capacity, so padding happens
                byte[] p = bytes(size, seq);
                assertThat(write(w, 3, seq, p)).as("record %d fits", seq).isTrue();
                w.publish();
                List<Rec> got = drain(r);
                assertThat(got).hasSize(1);
                assertThat(got.getFirst().word()).isEqualTo(seq);
                assertThat(got.getFirst().payload()).isEqualTo(p);
                seq++;
            }
            assertThat(w.tail()).as("the writer went round the ring many times").isGreaterThan(8L * CAPACITY);
        }
    }

    @Test
    void theWriterWaitsForTheReaderAndNeverOverwritesAnUnreadRecord() {
        try (Arena arena = Arena.ofConfined()) {
            RecordRing ring = ring(arena, CAPACITY);
            RingWriter w = new RingWriter(ring);
            RingReader r = new RingReader(ring);
            int written = 0;
            while (write(w, 1, written, bytes(1000, written))) {
                written++;
            }
            assertThat(written).isEqualTo(4);
            w.publish();
            assertThat(w.fits(1000)).isFalse();
            // the reader takes one record and declines the next: only the first record's room comes back
            int[] seen = {0};
            r.read((kind, word, data, offset, length) -> seen[0]++ == 0, Integer.MAX_VALUE);
            assertThat(w.fits(1000)).isTrue();
            assertThat(write(w, 1, written, bytes(1000, written))).isTrue();
            w.publish();
            List<Rec> rest = drain(r);
            assertThat(rest).extracting(Rec::word).containsExactly(1L, 2L, 3L, 4L);
            for (Rec rec : rest) {
                assertThat(rec.payload()).isEqualTo(bytes(1000, (int) rec.word()));
            }
        }
    }

    @Test
    void aWriterAndAReaderOnTwoThreadsPassAMillionRecordsInOrderWithEveryByteIntact() throws Exception {
        try (Arena arena = Arena.ofShared()) {
            RecordRing ring = ring(arena, 64 << 10);
            RingWriter w = new RingWriter(ring);
            RingReader r = new RingReader(ring);
            int n = 1_000_000;
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread producer = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < n; i++) {
                        int size = i % 97; // 0..96 bytes: every alignment case, wrap-arounds at every offset
                        long at;
                        while ((at = w.claim(5, i, size)) < 0) {
                            w.publish();
                            Thread.onSpinWait();
                        }
                        for (int j = 0; j < size; j++) {
                            w.data().set(ValueLayout.JAVA_BYTE, at + j, (byte) (i + j));
                        }
                        if (i % 16 == 0) {
                            w.publish(); // batches of records behind one release store
                        }
                    }
                    w.publish();
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            long[] next = {0};
            long deadline = System.nanoTime() + 50_000_000_000L;
            while (next[0] < n && failure.get() == null && System.nanoTime() < deadline) {
                r.read((kind, word, data, offset, length) -> {
                    int i = (int) next[0];
                    if (kind != 5 || word != i || length != i % 97) {
                        throw new AssertionError("record " + i + " read as kind " + kind + " word " + word
                                + " length " + length);
                    }
                    for (int j = 0; j < length; j++) {
                        if (data.get(ValueLayout.JAVA_BYTE, offset + j) != (byte) (i + j)) {
                            throw new AssertionError("record " + i + " byte " + j + " not yet visible or torn");
                        }
                    }
                    next[0]++;
                    return true;
                }, 1000);
            }
            producer.join();
            assertThat(failure.get()).isNull();
            assertThat(next[0]).isEqualTo(n);
        }
    }

    @Test
    void positionsAndLengthsAPeerCouldForgeAreRefused() {
        try (Arena arena = Arena.ofConfined()) {
            RecordRing ring = ring(arena, CAPACITY);
            RingReader r = new RingReader(ring);
            RingReader.Handler any = (kind, word, data, offset, length) -> true;
            // a tail more than a ring ahead
            RecordRing.LONG.setRelease(ring.header, RecordRing.TAIL, (long) CAPACITY + 16);
            assertThatThrownBy(() -> r.read(any, 10)).isInstanceOf(ShmProtocolException.class);
            // a tail that is not on a record boundary
            RecordRing.LONG.setRelease(ring.header, RecordRing.TAIL, 24L);
            assertThatThrownBy(() -> r.read(any, 10)).isInstanceOf(ShmProtocolException.class);
            // a record claiming more than was published
            RecordRing.LONG.setRelease(ring.header, RecordRing.TAIL, 32L);
            ring.data.set(ValueLayout.JAVA_INT, 0, 4000);
            assertThatThrownBy(() -> r.read(any, 10)).isInstanceOf(ShmProtocolException.class);
            // a record shorter than its own header
            ring.data.set(ValueLayout.JAVA_INT, 0, 8);
            assertThatThrownBy(() -> r.read(any, 10)).isInstanceOf(ShmProtocolException.class);

            RecordRing other = ring(arena, CAPACITY);
            RingWriter w = new RingWriter(other);
            w.claim(1, 1, 2000);
            w.claim(1, 1, 1000);
            w.publish();
            // a head the reader could not have reached (beyond what was published), or one that went back
            RecordRing.LONG.setRelease(other.header, RecordRing.HEAD, 1L << 20);
            assertThatThrownBy(() -> w.claim(1, 1, 1500)).isInstanceOf(ShmProtocolException.class);
        }
    }

    @Test
    void theStagingPoolHandsOutChunksInOrderSkipsTheGapAtTheEndAndChecksWhatTheReaderIsTold() {
        try (Arena arena = Arena.ofConfined()) {
            int capacity = 64 << 10;
            StagingPool pool = new StagingPool(arena.allocate(StagingPool.bytesFor(capacity), 4096), capacity);
            StagingPool.Writer w = pool.new Writer();
            StagingPool.Reader r = pool.new Reader();
            long a = w.reserve(24 << 10);
            long b = w.reserve(24 << 10);
            assertThat(w.reserve(24 << 10)).as("only 16 KiB left").isEqualTo(-1);
            assertThat(r.check(a, 24 << 10)).isZero();
            r.free(a, 24 << 10);
            assertThat(w.roomFreed()).isTrue();
            // 16 KiB before the end does not hold 24: the chunk starts the next lap, at index 0
            long c = w.reserve(24 << 10);
            assertThat(c).isEqualTo(capacity);
            assertThat(pool.index(c)).isZero();
            assertThatThrownBy(() -> r.check(c + (16 << 10), 24 << 10)).as("a chunk beyond one lap from the head")
                    .isInstanceOf(ShmProtocolException.class);
            r.free(b, 24 << 10);
            assertThat(r.check(c, 24 << 10)).isZero();
            assertThatThrownBy(() -> r.check(c + (48 << 10), 24 << 10)).as("a chunk that would wrap")
                    .isInstanceOf(ShmProtocolException.class);
            assertThatThrownBy(() -> r.check(b, 8)).as("a chunk behind the head")
                    .isInstanceOf(ShmProtocolException.class);
            assertThatThrownBy(() -> w.reserve(capacity)).isInstanceOf(IllegalArgumentException.class);
        }
    }
}
