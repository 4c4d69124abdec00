package dev.rivulet.samples.bench;

import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

/**
 * A server's {@link BenchWire#ACK} of one streaming phase, as the client received it at {@code nanos}: the messages
 * the server counted, its sequence errors and the bytes its JVM allocated during the phase.
 */
public record Ack(long count, long errors, long serverAlloc, long nanos) {

    /** Reads the ACK payload that {@link SeqCounter#ack} wrote (after the 8-byte header). */
    public static Ack read(MemorySegment from, long nanos) {
        return new Ack(from.get(JAVA_LONG_UNALIGNED, 8), from.get(JAVA_LONG_UNALIGNED, 16),
                from.get(JAVA_LONG_UNALIGNED, 24), nanos);
    }

    /** This ack, if {@code server} received all {@code n} messages in order; otherwise the phase failed. */
    public Ack check(String server, long n) {
        if (count != n || errors != 0) {
            throw new IllegalStateException(server + " received " + count + " of " + n + " messages with " + errors
                    + " sequence errors");
        }
        return this;
    }
}
