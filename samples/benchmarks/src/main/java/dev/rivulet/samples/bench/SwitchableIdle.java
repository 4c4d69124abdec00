package dev.rivulet.samples.bench;

import dev.rivulet.core.progress.IdleStrategy;

/**
 * {@code --idle spin} of the benchmark nodes: the progress loop busy-polls (like a native baseline) while the
 * parent says "hot", i.e. during Rivulet measurements, and otherwise backs off like the default strategy, so that
 * an idle Rivulet JVM does not take CPU from the other implementations' runs in between.
 */
public final class SwitchableIdle implements IdleStrategy {

    private static volatile boolean hot;
    private final IdleStrategy cold = IdleStrategy.defaultStrategy();

    @Override
    public void idle(int workCount, Parker parker) {
        if (hot) {
            Thread.onSpinWait();
        } else {
            cold.idle(workCount, parker);
        }
    }

    /** Applies a "hot" or "cold" command and returns its answer ("OK hot"), or null for any other command. */
    public static String command(String command) {
        switch (command) {
            case "hot" -> hot = true;
            case "cold" -> hot = false;
            default -> {
                return null;
            }
        }
        return "OK " + command;
    }
}
