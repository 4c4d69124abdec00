package dev.rivulet.samples.pingpong;

/**
 * One size's round: {@code iterations} round trips of {@code size}-byte messages in {@code nanos}; {@code acked} is
 * the client's count of messages it received (on the server, the count the client reported).
 */
public record RoundResult(int size, int iterations, long acked, long nanos) {

    /** Transfers per iteration: a ping and a pong. */
    public static final int TRANSFERS_PER_ITERATION = 2;

    /** Payload bytes moved in both directions. */
    public long bytes() {
        return (long) size * iterations * TRANSFERS_PER_ITERATION;
    }

    /** Megabytes (10^6) per second, fi_pingpong's {@code MB/sec}: bytes per microsecond. */
    public double megabytesPerSecond() {
        return bytes() / micros();
    }

    /** Microseconds per one-way transfer: half the round-trip time. */
    public double microsPerTransfer() {
        return micros() / iterations / TRANSFERS_PER_ITERATION;
    }

    private double micros() {
        return Math.max(nanos, 1) / 1000.0;
    }
}
