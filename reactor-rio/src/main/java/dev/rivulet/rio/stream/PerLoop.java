package dev.rivulet.rio.stream;

import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.loop.ProgressLoop;

import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * One native completion queue (an io_uring, a RIO completion queue) per progress loop, created on first use on the
 * loop's own thread: io_uring is set up SINGLE_ISSUER, and both are only ever touched by the thread that polls them.
 *
 * @param <T> the per-loop queue
 */
public final class PerLoop<T> {

    private final String what;
    private final Function<ProgressLoop, T> create;
    private final Map<ProgressLoop, T> queues = new ConcurrentHashMap<>();

    /**
     * @param what   names the queue in errors ("io_uring")
     * @param create makes the queue on the loop's thread (and registers it with the loop as poller and waiter)
     */
    public PerLoop(String what, Function<ProgressLoop, T> create) {
        this.what = what;
        this.create = create;
    }

    public T of(ProgressLoop loop) {
        T q = queues.get(loop);
        if (q != null) {
            return q;
        }
        synchronized (queues) {
            q = queues.get(loop);
            if (q != null) {
                return q;
            }
            if (loop.inLoop()) {
                q = create.apply(loop);
            } else {
                CompletableFuture<T> made = new CompletableFuture<>();
                loop.execute(() -> {
                    try {
                        made.complete(create.apply(loop));
                    } catch (Throwable t) {
                        made.completeExceptionally(t);
                    }
                });
                try {
                    q = made.get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new ProviderException("could not create the " + what + " of " + loop.name() + ": " + e, e);
                }
            }
            queues.put(loop, q);
            return q;
        }
    }

    /** Every queue made so far, then forgets them (the transport closes them as it goes away). */
    public Collection<T> drain() {
        synchronized (queues) {
            Collection<T> all = List.copyOf(queues.values());
            queues.clear();
            return all;
        }
    }
}
