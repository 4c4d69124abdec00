package dev.rivulet.core;

import org.jspecify.annotations.Nullable;
import reactor.util.context.ContextView;

/**
 * Called on the progress thread when an operation completes, with the Reactor {@code Context} of the subscriber
 * that issued it: the place to restore a trace id or MDC for completion-side logging. Must not block.
 */
@FunctionalInterface
public interface OperationObserver {

    /**
     * @param op        the operation kind
     * @param bytes     payload bytes (0 for atomics, flush, fence)
     * @param nanos     time from subscription to completion
     * @param error     the failure, or {@code null} on success
     * @param context   the issuing subscriber's context
     */
    void onComplete(Operation op, long bytes, long nanos, @Nullable Throwable error, ContextView context);
}
