package dev.rivulet.samples.bench.shm;

import dev.rivulet.core.progress.IdleStrategy;
import org.agrona.concurrent.BackoffIdleStrategy;

/**
 * Which implementation's threads busy-poll in a {@link ShmBenchNode} JVM: the one being measured, named by the
 * parent's "hot IMPL" command, and none after "cold". A node hosts all three implementations (Rivulet on shm://,
 * Rivulet on libfabric shm, Aeron), so the switch is per implementation: only the measured one's polling threads
 * spin, and the idle ones back off and leave the two CPUs to it.
 */
final class Spin {

    static final int NONE = 0;
    static final int SHM = 1;
    static final int FABRIC = 2;
    static final int AERON = 3;

    private static volatile int hot = NONE;

    private Spin() {
    }

    static boolean hot(int impl) {
        return hot == impl;
    }

    /** Applies "hot shm|fabric|aeron" or "cold" and returns its answer ("OK hot shm"), null for anything else. */
    static String command(String line) {
        String[] w = line.split("\\s+");
        if (w.length == 1 && w[0].equals("cold")) {
            hot = NONE;
        } else if (w.length == 2 && w[0].equals("hot")) {
            hot = switch (w[1]) {
                case "shm" -> SHM;
                case "fabric" -> FABRIC;
                case "aeron" -> AERON;
                default -> throw new IllegalArgumentException("unknown implementation " + w[1]);
            };
        } else {
            return null;
        }
        return "OK " + line;
    }

    /**
     * A Rivulet polling thread's idle strategy: spins while {@code impl} is hot, otherwise the default strategy
     * (which parks, and on shm:// sleeps on the connection's futex).
     */
    static IdleStrategy rivulet(int impl) {
        IdleStrategy cold = IdleStrategy.defaultStrategy();
        return (workCount, parker) -> {
            if (hot == impl) {
                Thread.onSpinWait();
            } else {
                cold.idle(workCount, parker);
            }
        };
    }

    /**
     * An Aeron agent's (or polling loop's) idle strategy: Agrona's busy spin while Aeron is hot, as Aeron's
     * low-latency samples run, otherwise a backoff to 10 ms parks.
     */
    static org.agrona.concurrent.IdleStrategy aeron() {
        return new org.agrona.concurrent.IdleStrategy() {
            private final BackoffIdleStrategy cold = new BackoffIdleStrategy(10, 20, 1_000, 10_000_000);

            @Override
            public void idle(int workCount) {
                if (workCount > 0) {
                    cold.reset();
                } else {
                    idle();
                }
            }

            @Override
            public void idle() {
                if (hot == AERON) {
                    Thread.onSpinWait();
                } else {
                    cold.idle();
                }
            }

            @Override
            public void reset() {
                cold.reset();
            }

            @Override
            public String alias() {
                return "busy-spin-while-measured";
            }
        };
    }
}
