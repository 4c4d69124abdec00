package dev.rivulet.core.local;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/** A bound {@code local://name}; connecting endpoints are queued until its subscriber takes them. */
final class LocalListener implements Listener {

    private final LocalTransport transport;
    private final String name;
    private final Sinks.Many<Endpoint> accepted = Sinks.many().unicast().onBackpressureBuffer();
    private final Sinks.Empty<Void> disposed = Sinks.empty();
    private volatile boolean isDisposed;

    LocalListener(LocalTransport transport, String name) {
        this.transport = transport;
        this.name = name;
    }

    LocalTransport transport() {
        return transport;
    }

    /** Offers an accepted endpoint; false once disposed. */
    synchronized boolean accept(Endpoint e) {
        return !isDisposed && accepted.tryEmitNext(e).isSuccess();
    }

    @Override
    public String address() {
        return "local://" + name;
    }

    @Override
    public Flux<Endpoint> accepted() {
        return accepted.asFlux();
    }

    @Override
    public Mono<Void> onDispose() {
        return disposed.asMono();
    }

    @Override
    public synchronized void dispose() {
        if (isDisposed) {
            return;
        }
        isDisposed = true;
        LocalFabric.unbind(name, this);
        accepted.tryEmitComplete();
        disposed.tryEmitEmpty();
    }

    @Override
    public boolean isDisposed() {
        return isDisposed;
    }
}
