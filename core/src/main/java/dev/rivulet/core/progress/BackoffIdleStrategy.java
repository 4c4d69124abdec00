package dev.rivulet.core.progress;

/** Spin, then yield, then park with exponential backoff. See {@link IdleStrategy#backoff}. */
final class BackoffIdleStrategy implements IdleStrategy {

    private final int maxSpins;
    private final int maxYields;
    private final long minParkNanos;
    private final long maxParkNanos;
    private int spins;
    private int yields;
    private long parkNanos;

    BackoffIdleStrategy(int maxSpins, int maxYields, long minParkNanos, long maxParkNanos) {
        if (maxSpins < 0 || maxYields < 0 || minParkNanos < 1 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException("invalid backoff: spins=" + maxSpins + " yields=" + maxYields
                    + " park=" + minParkNanos + ".." + maxParkNanos);
        }
        this.maxSpins = maxSpins;
        this.maxYields = maxYields;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
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
            parkNanos = parkNanos >= maxParkNanos >> 1 ? maxParkNanos : parkNanos << 1; // no overflow
        }
    }
}
