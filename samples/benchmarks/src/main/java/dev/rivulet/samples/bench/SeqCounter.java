package dev.rivulet.samples.bench;

import java.lang.foreign.MemorySegment;

import static dev.rivulet.samples.bench.BenchWire.ACK;
import static dev.rivulet.samples.bench.BenchWire.COPY;
import static dev.rivulet.samples.bench.BenchWire.DATA;
import static dev.rivulet.samples.bench.BenchWire.LAST;
import static dev.rivulet.samples.bench.BenchWire.allocated;
import static dev.rivulet.samples.bench.BenchWire.header;
import static dev.rivulet.samples.bench.BenchWire.seq;
import static dev.rivulet.samples.bench.BenchWire.type;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * A server's sequence checking and allocation accounting of one streaming phase, whatever carries the messages: a
 * phase of numbered messages starts at sequence 0, a phase of copies ({@link dev.rivulet.samples.bench.BenchWire#COPY})
 * with its first copy, and its {@link #ack} answers the LAST message, whose sequence number is the count of messages
 * before it either way.
 */
public final class SeqCounter {
    private long received;
    private long errors;
    private long alloc0;
    private long expected;
    /** Whether a phase has begun and not yet been acknowledged (copies carry no sequence 0 to begin one). */
    private boolean open;

    /**
     * Counts the message with header {@code h} if it is data (numbered, a copy, or LAST): true for LAST, which ends
     * the phase and wants its {@link #ack}; false for any other message, data or not.
     */
    public boolean onMessage(long h) {
        int type = type(h);
        if (type == COPY) {
            onCopy();
        } else if (type == DATA || type == LAST) {
            onData(seq(h));
        }
        return type == LAST;
    }

    /** A numbered message (DATA, or LAST, which ends the phase). */
    private void onData(long seq) {
        if (seq == 0) {
            start();
        }
        if (seq != expected) {
            errors++;
        }
        expected = seq + 1;
        received++;
    }

    /** A copy: counted as the next message of the phase. */
    private void onCopy() {
        if (!open) {
            start();
        }
        expected++;
        received++;
    }

    private void start() {
        open = true;
        received = 0;
        expected = 0;
        errors = 0;
        alloc0 = allocated();
    }

    /** Writes the ACK payload (header, count, errors, bytes allocated in the phase): 32 bytes. */
    public void ack(MemorySegment to) {
        long alloc = allocated() - alloc0;
        to.set(JAVA_LONG_UNALIGNED, 0, header(ACK, 0));
        to.set(JAVA_LONG_UNALIGNED, 8, received);
        to.set(JAVA_LONG_UNALIGNED, 16, errors);
        to.set(JAVA_LONG_UNALIGNED, 24, alloc);
        open = false;
    }
}
