package dev.rivulet.samples.bench;

import java.lang.management.ManagementFactory;

/**
 * The message header the benchmark nodes exchange: 8 bytes, little-endian; the top byte is the type ({@link #DATA},
 * {@link #LAST}, {@link #PING}, ...), the low 56 bits a sequence number that starts at 0 in every phase. The
 * receiver checks the sequence of every data message and answers the {@link #LAST} one with an {@link #ACK}
 * carrying the count it saw, the sequence errors and the bytes its JVM allocated during the phase.
 *
 * <p>A phase of {@link #COPY} messages sends one prepared message again and again (the Reactor Netty comparison's
 * retained duplicates of one buffer, and the same on Rivulet's side): copies carry no sequence number, so the
 * receiver counts them, and the {@link #LAST} message that ends the phase carries the number of copies before it,
 * which the receiver checks against its count.
 */
public final class BenchWire {

    public static final int DATA = 0;
    public static final int LAST = 1;
    public static final int PING = 2;
    public static final int PONG = 3;
    public static final int ACK = 4;
    public static final int TARGET = 5;
    /** A data message identical to the others of its phase: counted, not numbered. */
    public static final int COPY = 6;
    private static final long SEQ_MASK = (1L << 56) - 1;

    private BenchWire() {
    }

    public static long header(int type, long seq) {
        return ((long) type << 56) | (seq & SEQ_MASK);
    }

    public static int type(long header) {
        return (int) (header >>> 56);
    }

    public static long seq(long header) {
        return header & SEQ_MASK;
    }

    /** Bytes allocated on the Java heap by every thread of this JVM so far (live and terminated threads). */
    public static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getTotalThreadAllocatedBytes();
    }
}
