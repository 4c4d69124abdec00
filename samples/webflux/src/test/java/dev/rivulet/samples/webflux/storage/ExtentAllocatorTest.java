package dev.rivulet.samples.webflux.storage;

import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The extent allocator under random allocate and free sequences, checked against a model of the extents handed out:
 * no two live extents overlap, none reaches past the capacity, the bytes in use are exactly those of the live extents,
 * and once everything is freed the whole capacity is one free range again.
 */
class ExtentAllocatorTest {

    private static final long CAPACITY = 1 << 20;

    /** One extent handed out: where, and the size it was asked for. */
    private record Live(long offset, long size) {
        long end() {
            return offset + aligned(size);
        }
    }

    @RepeatedTest(100)
    void randomAllocationsAndFreesNeverOverlapNorExceedTheCapacity(RepetitionInfo run) {
        Random random = new Random(run.getCurrentRepetition());
        ExtentAllocator extents = new ExtentAllocator(CAPACITY);
        List<Live> live = new ArrayList<>();
        for (int step = 0; step < 2_000; step++) {
            if (!live.isEmpty() && random.nextInt(100) < 45) {
                Live gone = live.remove(random.nextInt(live.size()));
                extents.free(gone.offset(), gone.size());
            } else {
                long size = random.nextInt(4) == 0 ? random.nextInt(64 << 10) : random.nextInt(2048);
                long at = extents.allocate(size);
                if (at < 0) {
                    continue; // no free range large enough: refused, nothing changed
                }
                Live added = new Live(at, size);
                assertThat(at % ExtentAllocator.ALIGN).as("aligned offset").isZero();
                assertThat(added.end()).as("extent %s within the capacity", added).isLessThanOrEqualTo(CAPACITY);
                live.add(added);
            }
            assertNoOverlap(live);
            assertThat(extents.used()).as("used bytes after step %d", step)
                    .isEqualTo(live.stream().mapToLong(l -> aligned(l.size())).sum())
                    .isLessThanOrEqualTo(CAPACITY);
        }
        live.forEach(l -> extents.free(l.offset(), l.size()));
        assertThat(extents.used()).isZero();
        assertThat(extents.allocate(CAPACITY)).as("everything freed is one free range again").isZero();
    }

    @Test
    void aFreedHoleIsReusedForExactlyItsLength() {
        ExtentAllocator extents = new ExtentAllocator(64 * 10);
        long[] at = new long[10];
        for (int i = 0; i < at.length; i++) {
            at[i] = extents.allocate(64);
        }
        // Holes of one, two and one extents, so the free map has ranges on both sides of the one taken next.
        extents.free(at[1], 64);
        extents.free(at[4], 64);
        extents.free(at[5], 64);
        extents.free(at[8], 64);
        assertThat(extents.allocate(64)).isEqualTo(at[1]);
        assertThat(extents.allocate(128)).isEqualTo(at[4]);
        assertThat(extents.allocate(64)).isEqualTo(at[8]);
        assertThat(extents.allocate(1)).as("full").isEqualTo(-1);
        assertThat(extents.used()).isEqualTo(64 * 10);
    }

    private static void assertNoOverlap(List<Live> live) {
        TreeMap<Long, Live> byOffset = new TreeMap<>();
        live.forEach(l -> byOffset.put(l.offset(), l));
        assertThat(byOffset).as("no two extents at one offset").hasSameSizeAs(live);
        Live previous = null;
        for (Live l : byOffset.values()) {
            if (previous != null) {
                assertThat(previous.end()).as("%s overlaps %s", previous, l).isLessThanOrEqualTo(l.offset());
            }
            previous = l;
        }
    }

    private static long aligned(long size) {
        long n = Math.max(1, size);
        return (n + ExtentAllocator.ALIGN - 1) / ExtentAllocator.ALIGN * ExtentAllocator.ALIGN;
    }
}
