package dev.rivulet.core.progress;

/**
 * Spin, then yield, then park with exponential backoff. See {@link IdleStrategy#backoff} and
 * {@link IdleStrategy#blocking()}: with {@code thenUntilWoken}, the park after one at the maximum lasts until the
 * loop is woken ({@code Long.MAX_VALUE}, which the loop caps at its park limit) instead of another maximum.
 */
final class BackoffIdleStrategy implements IdleStrategy {

    /** The spin, yield and first park of {@link IdleStrategy#defaultStrategy()} and {@link IdleStrategy#blocking()}. */
    static final int SPINS = 200;
    static final int YIELDS = 10;
    static final long MIN_PARK_NANOS = 10_000;

    private final int maxSpins;
    private final int maxYields;
    private final long minParkNanos;
    private final long maxParkNanos;
    private final boolean thenUntilWoken;
    private int spins;
    private int yields;
    private long parkNanos;

    BackoffIdleStrategy(int maxSpins, int maxYields, long minParkNanos, long maxParkNanos, boolean thenUntilWoken) {
        if (maxSpins < 0 || maxYields < 0 || minParkNanos < 1 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException("invalid backoff: spins=" + maxSpins + " yields=" + maxYields
                    + " park=" + minParkNanos + ".." + maxParkNanos);
        }
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
        this.thenUntilWoken = thenUntilWoken;
        this.parkNanos = minParkNanos;
    }

    @Override
    public void idle(int workCount, Parker parker) {
        if (workCount > 0) {
            spins = 0;
            yields = 0;
            parkNanos = minParkNanos;
        } else if (spins < maxSpins) {
            spins++;
            Thread.onSpinWait();
        } else if (yields < maxYields) {
            yields++;
            Thread.yield();
        } else {
            parker.park(parkNanos);
            parkNanos = next(parkNanos);
        }
    }

    private long next(long parked) {
        if (parked >= maxParkNanos) {
            return thenUntilWoken ? Long.MAX_VALUE : maxParkNanos;
        }
        return parked >= maxParkNanos >> 1 ? maxParkNanos : parked << 1; // no overflow
    }
}
