package dev.rivulet.samples.bench.interaction;

import dev.rivulet.core.progress.IdleStrategy;

/**
 * {@code --idle spin} of {@link InteractionBenchNode}: the polling threads of the transport being measured, named by
 * the parent's "hot uring" or "hot shm", busy-poll; every other Rivulet polling thread of the JVM keeps the default
 * strategy, so that the idle transport's threads leave the CPUs to the measured one (a node hosts both).
 */
final class HotTransport {

    private static volatile String hot = "";

    private HotTransport() {
    }

    /** A polling thread's idle strategy for {@code transport}: spins while it is hot, otherwise the default. */
    static IdleStrategy idle(String transport) {
        IdleStrategy cold = IdleStrategy.defaultStrategy();
        return (workCount, parker) -> {
            if (transport.equals(hot)) {
                Thread.onSpinWait();
            } else {
                cold.idle(workCount, parker);
            }
        };
    }

    /** Applies "hot TRANSPORT" or "cold" and returns its answer ("OK hot shm"), null for anything else. */
    static String command(String line) {
        String[] w = line.split("\\s+");
        if (w.length == 1 && w[0].equals("cold")) {
            hot = "";
        } else if (w.length == 2 && w[0].equals("hot")) {
            hot = w[1];
        } else {
            return null;
        }
        return "OK " + line;
    }
}
