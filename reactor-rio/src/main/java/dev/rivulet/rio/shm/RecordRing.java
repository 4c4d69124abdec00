package dev.rivulet.rio.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A single-producer, single-consumer ring of variable-length records in shared memory, after Aeron's
 * {@code OneToOneRingBuffer}: one process writes, the other reads, and neither ever blocks the other.
 *
 * <pre>
 *  header  [0, 128)   tail: bytes ever published by the writer (written by the writer only)
 *          [128, 256) head: bytes ever consumed by the reader (written by the reader only)
 *  data    [256, 256 + capacity)
 *  record  [i32 length (header + payload) | i32 kind | i64 word | payload ...], padded to 16 bytes
 * </pre>
 *
 * The two counters sit on cache lines of their own (128 bytes apart, beyond the adjacent-line prefetcher), so the
 * writer and the reader never write the same line. Positions only grow; a position's index is
 * {@code position & (capacity - 1)}. A record never wraps: when it does not fit before the end, the writer fills the
 * rest with a {@link #PAD} record and starts again at index 0. Because records and capacity are multiples of 16, the
 * space left at the end always has room for a padding header.
 *
 * <p>Memory ordering: the writer stores a record's bytes with plain stores and then publishes the tail with a
 * release store; the reader loads the tail with an acquire load, after which every record before it is visible,
 * reads as many records as it likes (batched reads), and hands the space back by publishing its head with a release
 * store, which the writer acquires before reusing the space. No record is read before it is published, and no space
 * is overwritten before it is consumed.
 *
 * <p>The peer can write anything into the shared mapping, so the reader trusts nothing it reads: positions and
 * lengths are checked before use and read once ({@link RingReader}).
 */
final class RecordRing {

    static final int HEADER_BYTES = 256;
    static final long TAIL = 0;
    static final long HEAD = 128;
    /** Record header: length, kind, word. */
    static final int RECORD_HEADER = 16;
    static final int ALIGNMENT = 16;
    /** The kind of a record that only fills the space before the end of the ring. */
    static final int PAD = 0;

    static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    final MemorySegment header;
    final MemorySegment data;
    final int capacity;
    final long mask;

    /** {@code region} holds {@link #bytesFor(int)} of {@code capacity} bytes. */
    RecordRing(MemorySegment region, int capacity) {
        if (Integer.bitCount(capacity) != 1 || capacity < 4 * ALIGNMENT) {
            throw new IllegalArgumentException("ring capacity must be a power of two, got " + capacity);
        }
        this.header = region.asSlice(0, HEADER_BYTES);
        this.data = region.asSlice(HEADER_BYTES, capacity);
        this.capacity = capacity;
        this.mask = capacity - 1L;
    }

    /** Bytes a ring of {@code capacity} occupies in the shared file. */
    static long bytesFor(int capacity) {
        return HEADER_BYTES + (long) capacity;
    }

    static int align(int recordLength) {
        return (recordLength + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /** The largest payload one record can carry in a ring of this capacity (a record may take at most half). */
    int maxPayload() {
        return capacity / 2 - RECORD_HEADER;
    }
}
