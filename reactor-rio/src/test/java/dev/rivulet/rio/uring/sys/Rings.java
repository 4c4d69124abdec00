package dev.rivulet.rio.uring.sys;

import static org.assertj.core.api.Assertions.fail;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Bounded waiting for tests: nothing here can hang past its deadline. */
final class Rings {

    private static final long SLICE_NANOS = Duration.ofMillis(100).toNanos();

    private Rings() {
    }

    /** Submits, waits in short slices and reaps into {@code handler} until {@code done}, or fails at the deadline. */
    static void reapUntil(IoUring ring, BooleanSupplier done, CqeHandler handler, Duration limit, String what) {
        drive(ring, () -> { }, done, handler, limit, what);
    }

    /** As {@link #reapUntil}, calling {@code post} before every wait so it can queue follow-up SQEs. */
    static void drive(IoUring ring, Runnable post, BooleanSupplier done, CqeHandler handler, Duration limit,
                      String what) {
        long deadline = System.nanoTime() + limit.toNanos();
        ring.submit();
        ring.forEachCompletion(handler);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out after " + limit + " waiting for " + what);
            }
            post.run();
            ring.submitAndWait(1, SLICE_NANOS);
            ring.forEachCompletion(handler);
        }
    }
}
