package dev.rivulet.rio.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

import static dev.rivulet.rio.shm.RecordRing.LONG;

/**
 * The writing end of a {@link RecordRing}: claims room for a record, fills it, and publishes. Several records may be
 * claimed before one {@link #publish()} (a batch), which costs one release store for all of them.
 *
 * <p>The writer keeps its own tail and a cached copy of the reader's head, and reads the shared head only when the
 * cached one says the ring is full (Aeron's head cache), so a writer that is not about to overtake its reader does
 * not touch the reader's cache line.
 */
final class RingWriter {

    private final RecordRing ring;
    private final MemorySegment data;
    private long tail;
    private long headCache;
    private long published;

    RingWriter(RecordRing ring) {
        this.ring = ring;
        this.data = ring.data;
        this.tail = (long) LONG.getAcquire(ring.header, RecordRing.TAIL);
        this.published = tail;
        this.headCache = (long) LONG.getAcquire(ring.header, RecordRing.HEAD);
    }

    /**
     * Claims a record of {@code kind} with {@code payloadLength} bytes of payload and writes its header; returns the
     * offset in {@link #data()} where the payload goes, or -1 when the reader has not yet freed enough room.
     *
     * @throws ShmProtocolException when the reader's head is not a position it could have written
     */
    long claim(int kind, long word, int payloadLength) {
        int length = RecordRing.RECORD_HEADER + payloadLength;
        int aligned = RecordRing.align(length);
        if (payloadLength < 0 || aligned > ring.capacity / 2) {
            throw new IllegalArgumentException("record of " + payloadLength + " bytes in a ring of " + ring.capacity);
        }
        long index = tail & ring.mask;
        long toEnd = ring.capacity - index;
        long needed = aligned > toEnd ? toEnd + aligned : aligned;
        if (tail + needed - headCache > ring.capacity) {
            headCache = readHead();
            if (tail + needed - headCache > ring.capacity) {
                return -1;
            }
        }
        if (aligned > toEnd) {
            writeHeader(index, (int) toEnd, RecordRing.PAD, 0);
            tail += toEnd;
            index = 0;
        }
        writeHeader(index, length, kind, word);
        tail += aligned;
        return index + RecordRing.RECORD_HEADER;
    }

    /** Whether a record of {@code payloadLength} bytes fits now (reads the shared head if need be). */
    boolean fits(int payloadLength) {
        int aligned = RecordRing.align(RecordRing.RECORD_HEADER + payloadLength);
        long toEnd = ring.capacity - (tail & ring.mask);
        long needed = aligned > toEnd ? toEnd + aligned : aligned;
        if (tail + needed - headCache <= ring.capacity) {
            return true;
        }
        headCache = readHead();
        return tail + needed - headCache <= ring.capacity;
    }

    private long readHead() {
        long head = (long) LONG.getAcquire(ring.header, RecordRing.HEAD);
        if (head - headCache < 0 || head - published > 0) {
            throw new ShmProtocolException("the peer's ring head moved to " + head + " (tail " + published + ")");
        }
        return head;
    }

    private void writeHeader(long index, int length, int kind, long word) {
        data.set(ValueLayout.JAVA_INT, index, length);
        data.set(ValueLayout.JAVA_INT, index + 4, kind);
        data.set(ValueLayout.JAVA_LONG, index + 8, word);
    }

    /** The ring's bytes: payloads are written here at the offsets {@link #claim} returns. */
    MemorySegment data() {
        return data;
    }

    /** Makes every record claimed so far visible to the reader (one release store); false when there was none. */
    boolean publish() {
        if (tail == published) {
            return false;
        }
        published = tail;
        LONG.setRelease(ring.header, RecordRing.TAIL, tail);
        return true;
    }

    /** Whether the reader has consumed every record published so far (reads the shared head). */
    boolean drained() {
        return (long) LONG.getAcquire(ring.header, RecordRing.HEAD) == published;
    }

    /** Whether the reader consumed something since this writer last looked (a blocked writer may go on). */
    boolean roomFreed() {
        return (long) LONG.getAcquire(ring.header, RecordRing.HEAD) != headCache;
    }

    /** Bytes claimed so far, published or not. */
    long tail() {
        return tail;
    }

    /** The most payload one record can carry. */
    int maxPayload() {
        return ring.maxPayload();
    }
}
