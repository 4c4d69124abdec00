package dev.rivulet.samples.bench;

import java.lang.foreign.MemorySegment;

import static dev.rivulet.samples.bench.BenchWire.ACK;
import static dev.rivulet.samples.bench.BenchWire.allocated;
import static dev.rivulet.samples.bench.BenchWire.header;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * A server's sequence checking and allocation accounting of one streaming phase, whatever carries the messages: a
 * phase starts at sequence 0 and its {@link #ack} answers the LAST message.
 */
public final class SeqCounter {
    private long received;
    private long errors;
    private long alloc0;
    private long expected;

    public void onData(long seq) {
        if (seq == 0) {
            received = 0;
            expected = 0;
            errors = 0;
            alloc0 = allocated();
        }
        if (seq != expected) {
            errors++;
        }
        expected = seq + 1;
        received++;
    }

    /** Writes the ACK payload (header, count, errors, bytes allocated in the phase): 32 bytes. */
    public void ack(MemorySegment to) {
        long alloc = allocated() - alloc0;
        to.set(JAVA_LONG_UNALIGNED, 0, header(ACK, 0));
        to.set(JAVA_LONG_UNALIGNED, 8, received);
        to.set(JAVA_LONG_UNALIGNED, 16, errors);
        to.set(JAVA_LONG_UNALIGNED, 24, alloc);
    }
}
