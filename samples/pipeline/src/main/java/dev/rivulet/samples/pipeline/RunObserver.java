package dev.rivulet.samples.pipeline;

import dev.rivulet.core.Operation;
import dev.rivulet.core.OperationObserver;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts completed sends and their bytes per pipeline run. The run id is a Reactor {@code Context} value written
 * where the run is subscribed; Rivulet hands the subscriber's context to the transport's observer with each
 * completion, on the polling thread, so this must stay short and never block.
 */
public final class RunObserver implements OperationObserver {

    /** The context key of the run id. */
    public static final String RUN_ID = "pipeline.run";

    private final Map<String, Counts> runs = new ConcurrentHashMap<>();

    /** The context to write on a run: {@code sender.run(frames).contextWrite(RunObserver.runId("run-42"))}. */
    public static Context runId(String id) {
        return Context.of(RUN_ID, id);
    }

    @Override
    public void onComplete(Operation op, long bytes, long nanos, Throwable error, ContextView context) {
        if (op != Operation.SEND || error != null) {
            return;
        }
        String run = context.getOrDefault(RUN_ID, "(no run id)");
        Counts c = runs.computeIfAbsent(run, r -> new Counts());
        c.sends.increment();
        c.bytes.add(bytes);
    }

    /** Sends completed for {@code run}, as the observer saw them. */
    public long sends(String run) {
        Counts c = runs.get(run);
        return c == null ? 0 : c.sends.sum();
    }

    /** Payload bytes of those sends. */
    public long bytes(String run) {
        Counts c = runs.get(run);
        return c == null ? 0 : c.bytes.sum();
    }

    /** The run ids seen so far ("(no run id)" for sends whose subscriber had none). */
    public Set<String> runs() {
        return Map.copyOf(runs).keySet();
    }

    private static final class Counts {
        final LongAdder sends = new LongAdder();
        final LongAdder bytes = new LongAdder();
    }
}
