package dev.rivulet.rio.shm;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/**
 * The shared staging pool one side writes large payloads through: a byte ring in the shared file, carved into
 * contiguous <em>chunks</em> in the order they are written and freed in the same order as the peer copies them out.
 * Each chunk is announced by a {@code CHUNK} record in the ring naming its position and length, so the pool itself
 * needs only the reader's head:
 *
 * <pre>
 *  header  [0, 4096)   head: bytes ever freed by the reader (release store after it copied a chunk out)
 *  data    [4096, 4096 + capacity)   page-aligned, so chunk copies run on whole cache lines and pages
 * </pre>
 *
 * A chunk never wraps: when it does not fit before the end, the writer skips the rest of the lap, and the reader,
 * which learns each chunk's position from its record, moves its head past the gap with the chunk. A chunk is at most
 * half the pool, so a pool the reader has emptied always has room for the next one.
 */
final class StagingPool {

    static final int HEADER_BYTES = 4096;
    private static final long HEAD = 0;
    private static final VarHandle LONG = RecordRing.LONG;

    private final MemorySegment header;
    final MemorySegment data;
    final int capacity;
    private final long mask;

    StagingPool(MemorySegment region, int capacity) {
        if (Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("pool capacity must be a power of two, got " + capacity);
        }
        this.header = region.asSlice(0, HEADER_BYTES);
        this.data = region.asSlice(HEADER_BYTES, capacity);
        this.capacity = capacity;
        this.mask = capacity - 1L;
    }

    static long bytesFor(int capacity) {
        return HEADER_BYTES + (long) capacity;
    }

    /** The largest chunk: half the pool, so that the writer never waits for a gap the reader cannot free. */
    int maxChunk() {
        return capacity / 2;
    }

    long index(long position) {
        return position & mask;
    }

    /** The writing side: reserves chunks. */
    final class Writer {
        private long tail;
        private long headCache;

        Writer() {
            this.headCache = (long) LONG.getAcquire(header, HEAD);
            this.tail = headCache;
        }

        /** The position of {@code length} contiguous free bytes, now reserved, or -1 when the reader must free some. */
        long reserve(int length) {
            if (length <= 0 || length > maxChunk()) {
                throw new IllegalArgumentException("chunk of " + length + " bytes in a pool of " + capacity);
            }
            long start = tail;
            long index = start & mask;
            if (index + length > capacity) {
                start += capacity - index;
            }
            if (start + length - headCache > capacity) {
                long head = (long) LONG.getAcquire(header, HEAD);
                if (head - headCache < 0 || head - tail > 0) {
                    throw new ShmProtocolException("the peer's pool head moved to " + head + " (tail " + tail + ")");
                }
                headCache = head;
                if (start + length - headCache > capacity) {
                    return -1;
                }
            }
            tail = start + length;
            return start;
        }

        /** Whether the reader freed something since this writer last looked (a blocked writer may go on). */
        boolean roomFreed() {
            return (long) LONG.getAcquire(header, HEAD) != headCache;
        }
    }

    /** The reading side: checks each announced chunk and frees it once copied out. */
    final class Reader {
        private long head;

        Reader() {
            this.head = (long) LONG.getAcquire(header, HEAD);
        }

        /**
         * The data offset of the chunk at {@code position}, after checking that it lies where the writer could have
         * put it: at or after the head, within one lap, not wrapping.
         */
        long check(long position, int length) {
            long index = position & mask;
            if (length <= 0 || length > maxChunk() || position - head < 0 || position + length - head > capacity
                    || index + length > capacity) {
                throw new ShmProtocolException("chunk of " + length + " bytes at " + position + " (pool head "
                        + head + ")");
            }
            return index;
        }

        /** Gives the chunk (and any gap before it) back to the writer. */
        void free(long position, int length) {
            head = position + length;
            LONG.setRelease(header, HEAD, head);
        }
    }
}
