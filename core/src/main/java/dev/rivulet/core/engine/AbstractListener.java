package dev.rivulet.core.engine;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * What every listener does alike: it hands accepted endpoints to the one subscriber of {@link #accepted()}, and it
 * disposes once. From the moment {@link #dispose()} begins no endpoint is handed out ({@link #offer} refuses it, and
 * the caller closes it); then {@link #stop()} releases the listener's own resources, and only then does
 * {@code accepted()} complete and {@link #onDispose()} fire.
 */
public abstract class AbstractListener implements Listener {

    private final Sinks.Many<Endpoint> accepted = Sinks.many().unicast().onBackpressureBuffer();
    private final Sinks.Empty<Void> disposed = Sinks.empty();
    private volatile boolean isDisposed;

    /** Hands {@code e} to the subscriber of {@link #accepted()}; false, and {@code e} not handed out, once disposed. */
    protected final synchronized boolean offer(Endpoint e) {
        return !isDisposed && accepted.tryEmitNext(e).isSuccess();
    }

    /**
     * Releases what this listener holds (its socket, accept and set-up threads, handshakes in progress); called once,
     * by the first {@link #dispose()}, not under this object's lock. Endpoints already handed out stay open.
     */
    protected abstract void stop();

    @Override
    public final Flux<Endpoint> accepted() {
        return accepted.asFlux();
    }

    @Override
    public final Mono<Void> onDispose() {
        return disposed.asMono();
    }

    @Override
    public final void dispose() {
        synchronized (this) {
            if (isDisposed) {
                return;
            }
            isDisposed = true;
        }
        try {
            stop();
        } finally {
            accepted.tryEmitComplete();
            disposed.tryEmitEmpty();
        }
    }

    @Override
    public final boolean isDisposed() {
        return isDisposed;
    }
}
