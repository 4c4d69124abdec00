package dev.rivulet.core.engine;

import dev.rivulet.core.loop.RejectableTask;

import java.util.ArrayList;

/**
 * The claimed sends ({@link ClaimedSends}) running on one endpoint: each poll gives those with items a place in the
 * pending FIFO, and a close ends them all. Progress thread only, except {@link #start}.
 */
final class ClaimedStreams {

    private final EndpointEngine engine;
    private final ArrayList<ClaimedSends<?>> active = new ArrayList<>();

    ClaimedStreams(EndpointEngine engine) {
        this.engine = engine;
    }

    /** A stream got its upstream: it joins on the loop, which makes its first request. Any thread. */
    void start(ClaimedSends<?> stream) {
        Join join = new Join(stream);
        if (engine.loop().inLoop()) {
            join.run();
            return;
        }
        try {
            engine.loop().execute(join);
        } catch (RuntimeException e) {
            join.rejected();
        }
    }

    /** A stream joining on the loop; refused when the loop stopped before it ran (the transport closed). */
    private final class Join implements RejectableTask {
        private final ClaimedSends<?> stream;

        Join(ClaimedSends<?> stream) {
            this.stream = stream;
        }

        @Override
        public void run() {
            if (engine.isClosed()) {
                stream.closed(engine.closeCause());
                return;
            }
            active.add(stream);
            stream.started();
        }

        @Override
        public void rejected() {
            stream.refused();
        }
    }

    /** Queues the place of every stream with items, ends those that are done; returns how many did either. */
    int pull() {
        int work = 0;
        // Backwards, as a stream that ends leaves the list meanwhile (a frame that completes at once may end others).
        for (int i = active.size() - 1; i >= 0; i = Math.min(i, active.size()) - 1) {
            if (active.get(i).pull()) {
                work++;
            }
        }
        return work;
    }

    void ended(ClaimedSends<?> stream) {
        active.remove(stream);
        engine.streamEnded();
    }

    /** The endpoint closes: nothing more is sent, and each stream ends once its frames in flight come back. */
    void closeAll(Throwable cause) {
        for (int i = active.size() - 1; i >= 0; i = Math.min(i, active.size()) - 1) {
            active.get(i).closed(cause);
        }
    }
}
