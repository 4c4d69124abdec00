package dev.rivulet.rio.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static dev.rivulet.rio.shm.RecordRing.LONG;

/**
 * The reading end of a {@link RecordRing}: hands each published record to a {@link Handler} in order, and gives the
 * space back once per batch. A handler may decline a record it cannot take yet (no buffer free); the record then
 * stays at the head and is offered again on the next read.
 *
 * <p>Everything in the ring was written by the peer and is checked before it is used: the tail must be ahead of the
 * head by at most the capacity and aligned, each record's length must cover its header and stay within what was
 * published and before the end of the ring. Each header field is read once, so a peer changing the bytes under the
 * reader cannot make it act on a length it did not check. A violation is a {@link ShmProtocolException}.
 */
final class RingReader {

    /** Takes one record; the payload is {@code [offset, offset + length)} of {@code data}. */
    interface Handler {
        /** Returns false to leave the record at the head for later (nothing after it is read either). */
        boolean onRecord(int kind, long word, MemorySegment data, long offset, int length);
    }

    private final RecordRing ring;
    private final MemorySegment data;
    private long head;

    RingReader(RecordRing ring) {
        this.ring = ring;
        this.data = ring.data;
        this.head = (long) LONG.getAcquire(ring.header, RecordRing.HEAD);
    }

    /** Whether a record is waiting (one acquire load of the tail). */
    boolean hasRecords() {
        return (long) LONG.getAcquire(ring.header, RecordRing.TAIL) != head;
    }

    /** Reads up to {@code limit} records; returns how many the handler took. */
    int read(Handler handler, int limit) {
        long tail = (long) LONG.getAcquire(ring.header, RecordRing.TAIL);
        long available = tail - head;
        if (available == 0) {
            return 0;
        }
        if (available < 0 || available > ring.capacity || (tail & (RecordRing.ALIGNMENT - 1)) != 0) {
            throw new ShmProtocolException("the peer's ring tail moved to " + tail + " (head " + head + ")");
        }
        long start = head;
        int taken = 0;
        try {
            while (head != tail && taken < limit) {
                long index = head & ring.mask;
                int length = data.get(ValueLayout.JAVA_INT, index);
                int kind = data.get(ValueLayout.JAVA_INT, index + 4);
                long word = data.get(ValueLayout.JAVA_LONG, index + 8);
                if (length < RecordRing.RECORD_HEADER || length > ring.capacity) {
                    throw new ShmProtocolException("record of length " + length + " at " + head);
                }
                long aligned = RecordRing.align(length);
                if (aligned > tail - head || index + aligned > ring.capacity) {
                    throw new ShmProtocolException("record of " + length + " bytes at " + head
                            + " runs past what was published or past the end of the ring");
                }
                if (kind != RecordRing.PAD) {
                    if (!handler.onRecord(kind, word, data, index + RecordRing.RECORD_HEADER,
                            length - RecordRing.RECORD_HEADER)) {
                        break;
                    }
                    taken++;
                }
                head += aligned;
            }
        } finally {
            if (head != start) {
                LONG.setRelease(ring.header, RecordRing.HEAD, head);
            }
        }
        return taken;
    }
}
