package dev.rivulet.core.engine;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.Registrar;
import dev.rivulet.core.metrics.TransportMetrics;
import dev.rivulet.core.progress.ProgressEngine;
import dev.rivulet.core.progress.ProgressLoop;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What every transport has, whatever its wire: polling threads, a memory domain, meters, the endpoints and
 * listeners it must close, and an orderly {@link #dispose()}. A backend adds connection setup ({@code connect},
 * {@code bind}) and hands each new connection's {@link Wire} to {@link #newEndpoint}.
 */
public abstract class AbstractTransport implements Transport {

    private static final Logger log = LoggerFactory.getLogger(AbstractTransport.class);

    protected final TransportConfig config;
    protected final ProgressEngine progress;
    protected final MemoryDomain memory;
    protected final TransportMetrics metrics;
    private final String name;
    private final Set<EndpointEngine> endpoints = ConcurrentHashMap.newKeySet();
    private final Set<Listener> listeners = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean disposed = new AtomicBoolean();
    private final Sinks.Empty<Void> onDispose = Sinks.empty();

    protected AbstractTransport(String name, TransportConfig config, Registrar registrar) {
        config.liveness().validate();
        if (config.security().usesTls()) {
            config.security().tls(); // a TLS set-up that cannot work fails the open, not the first connection
        }
        this.name = name;
        this.config = config;
        this.progress = new ProgressEngine(name.replace('/', '-'), config.progressThreads(), config.idleStrategy());
        this.memory = new MemoryDomain(name, registrar);
        this.metrics = new TransportMetrics(name, progress::busyRatio);
        if (config.meterRegistry() != null) {
            metrics.bindTo(config.meterRegistry());
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public MemoryDomain memory() {
        return memory;
    }

    @Override
    public Scheduler scheduler() {
        return progress.scheduler();
    }

    @Override
    public MeterBinder metrics() {
        return metrics;
    }

    /** Counters of this transport, also when no registry is bound. */
    public TransportMetrics stats() {
        return metrics;
    }

    /** Capabilities of the endpoints this transport makes (queue depths as configured). */
    @Override
    public abstract Capabilities capabilities();

    /** Starts an endpoint over {@code wire} on the next polling thread; it is closed with the transport. */
    protected EndpointEngine newEndpoint(Wire wire) {
        return newEndpoint(wire, progress.nextLoop());
    }

    /** As {@link #newEndpoint(Wire)} on a given loop (for wires that must live on the loop that made them). */
    protected EndpointEngine newEndpoint(Wire wire, ProgressLoop loop) {
        EndpointEngine[] self = new EndpointEngine[1];
        EndpointEngine e = new EndpointEngine(wire, loop, memory, metrics, config.observer(), config.sendPrefetch(),
                () -> endpoints.remove(self[0]));
        self[0] = e;
        endpoints.add(e);
        e.start();
        return e;
    }

    /** Tracks a listener so that {@link #dispose()} closes it. */
    protected void track(Listener l) {
        listeners.add(l);
        l.onDispose().subscribe(null, null, () -> listeners.remove(l));
    }

    /** Throws when disposed: the first check of every connect and bind. */
    protected void checkOpen() {
        if (disposed.get()) {
            throw new ResourceClosedException("transport " + name + " is disposed");
        }
    }

    @Override
    public Mono<Void> onDispose() {
        return onDispose.asMono();
    }

    @Override
    public boolean isDisposed() {
        return disposed.get();
    }

    /**
     * Closes listeners, then endpoints (peers see a graceful close; their posted operations come back flushed),
     * waits for them, stops the polling threads, releases memory, and finally the backend's own resources.
     */
    @Override
    public void dispose() {
        if (!disposed.compareAndSet(false, true)) {
            return;
        }
        listeners.forEach(Listener::dispose);
        TransportException cause = new ResourceClosedException("transport was disposed");
        endpoints.forEach(e -> e.closeFromTransport(cause));
        for (EndpointEngine e : endpoints) {
            try {
                e.onClose().block(Duration.ofSeconds(5));
            } catch (RuntimeException timeout) {
                log.warn("endpoint {} did not close within 5 s", e);
            }
        }
        progress.close();
        memory.close();
        try {
            closeResources();
        } catch (RuntimeException e) {
            log.warn("closing {} failed", name, e);
        }
        onDispose.tryEmitEmpty();
    }

    /** Releases what the backend opened itself (fabric, domain, rings), after endpoints and memory are gone. */
    protected void closeResources() {
    }
}
