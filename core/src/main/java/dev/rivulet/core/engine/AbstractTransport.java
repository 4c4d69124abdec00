package dev.rivulet.core.engine;

import dev.rivulet.core.internal.MemoryAccess;
import dev.rivulet.core.internal.Internals;
import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.TransportOption;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.Registrar;
import dev.rivulet.core.metrics.BackendMeters;
import dev.rivulet.core.metrics.TransportMetrics;
import dev.rivulet.core.spi.Incubating;
import dev.rivulet.core.loop.ErrorPathClasses;
import dev.rivulet.core.loop.ProgressEngine;
import dev.rivulet.core.loop.ProgressLoop;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What every transport has, whatever its wire: polling threads, a memory domain, meters, the endpoints and
 * listeners it must close, and an orderly {@link #dispose()}. A backend adds connection setup ({@code connect},
 * {@code bind}) and hands each new connection's {@link Wire} to {@link #newEndpoint}.
 *
 * <p>The base class of third-party transports too (see {@code docs/writing-a-transport.md}): {@link #wireMemory()}
 * gives their wires the memory checks a target makes, {@link #addMeters} publishes meters of their own, and
 * {@link #extension(Class)} is where they offer facilities beyond the common API.
 */
@Incubating
public abstract class AbstractTransport implements Transport {

    private static final MemoryAccess MEMORY = Internals.memory();

    private static final Logger log = LoggerFactory.getLogger(AbstractTransport.class);

    protected final TransportConfig config;
    protected final ProgressEngine progress;
    protected final MemoryDomain memory;
    protected final TransportMetrics metrics;
    private final String name;
    private final String id;
    private final WireMemory wireMemory;
    private final Set<EndpointEngine> endpoints = ConcurrentHashMap.newKeySet();
    private final Set<Listener> listeners = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean disposed = new AtomicBoolean();
    private final Sinks.Empty<Void> onDispose = Sinks.empty();

    /**
     * @param options the provider options this transport reads: any other key in {@code config} (outside
     *                {@code security.*} and {@code liveness.*}) is refused, as is a value an option cannot read
     */
    protected AbstractTransport(String name, TransportConfig config, Registrar registrar,
                                Collection<? extends TransportOption<?>> options) {
        // Before anything can fail: what error and close paths need is loaded while the process can still open
        // files (see ErrorPathClasses); a transport whose start cannot load it fails to open instead of later.
        ErrorPathClasses.loadCore();
        config.checkOptions(name, options);
        config.liveness().validate();
        if (config.security().usesTls()) {
            config.security().tls(); // a TLS set-up that cannot work fails the open, not the first connection
        }
        this.name = name;
        this.id = config.name() != null ? config.name() : name.replace('/', '-') + "-" + SEQUENCE.incrementAndGet();
        this.config = config;
        // A sleeping loop runs no liveness checks: whatever the idle strategy, it wakes often enough for heartbeats.
        this.progress = new ProgressEngine(id, config.progressThreads(), config.idleStrategy(),
                config.liveness().heartbeatInterval().toNanos() / 4);
        MemoryDomain m = null;
        try {
            m = MEMORY.newDomain(name, registrar);
            this.memory = m;
            this.wireMemory = new WireMemory(m);
            this.metrics = new TransportMetrics(name, id, progress::busyRatio, memory.buffers());
            if (config.meterRegistry() != null) {
                metrics.bindTo(config.meterRegistry());
            }
        } catch (RuntimeException | Error e) {
            progress.close();
            if (m != null) {
                MEMORY.close(m);
            }
            throw e;
        }
    }

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    @Override
    public String name() {
        return name;
    }

    @Override
    public String id() {
        return id;
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

    /**
     * The polling threads of this transport, for Rivulet modules that drive work of their own from them (a
     * {@link dev.rivulet.core.loop.Pollable} registered on one of its loops).
     */
    public ProgressEngine progressEngine() {
        return progress;
    }

    /** Counters of this transport, also when no registry is bound. */
    public TransportMetrics stats() {
        return metrics;
    }

    /**
     * The memory operations this transport's wires need and applications may not call (checking an incoming remote
     * access, transfer grants, provider descriptors), on this transport's domain only.
     */
    protected final WireMemory wireMemory() {
        return wireMemory;
    }

    /**
     * Publishes meters of this backend beside the standard ones, with the same tags, on every registry this
     * transport's meters are bound to (the configured one included), until it is disposed. Call it from the
     * constructor, once what the meters read exists.
     */
    protected final void addMeters(BackendMeters meters) {
        metrics.add(meters);
    }

    /**
     * Every Rivulet transport offers its {@link ProgressEngine} (work of other modules driven from its polling
     * threads). A backend that offers more overrides this and falls back to it.
     */
    @Override
    public <T> Optional<T> extension(Class<T> type) {
        return type == ProgressEngine.class ? Optional.of(type.cast(progress)) : Optional.empty();
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
                config.receiveLinger(), () -> endpoints.remove(self[0]));
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

    /**
     * Connection set-up that blocks (a connect, a handshake, a bind): {@code work} runs, after {@link #checkOpen()},
     * on a bounded-elastic thread each time the result is subscribed to, so that neither the subscriber's thread nor
     * a progress loop waits for the network.
     */
    protected final <T> Mono<T> blockingSetUp(Callable<? extends T> work) {
        return Mono.<T>fromCallable(() -> {
            checkOpen();
            return work.call();
        }).subscribeOn(Schedulers.boundedElastic());
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

    @Override
    public void dispose() {
        Mono<Void> close = disposeLater();
        if (Schedulers.isInNonBlockingThread()) {
            close.subscribe(null, e -> log.warn("closing {} failed", id, e)); // never block a polling thread
            return;
        }
        try {
            close.block(DISPOSE_WAIT);
        } catch (RuntimeException e) {
            log.warn("transport {} did not finish closing within {}", id, DISPOSE_WAIT, e);
        }
    }

    private static final Duration DISPOSE_WAIT = Duration.ofSeconds(10);
    /** How long an immediate close waits for its endpoints to report closed before it releases resources anyway. */
    private static final Duration ENDPOINT_CLOSE_WAIT = Duration.ofSeconds(5);

    @Override
    public Mono<Void> disposeLater() {
        return Mono.defer(() -> {
            if (!disposed.compareAndSet(false, true)) {
                return onDispose();
            }
            listeners.forEach(Listener::dispose);
            TransportException cause = new ResourceClosedException("transport was disposed");
            List<EndpointEngine> open = List.copyOf(endpoints);
            open.forEach(e -> e.closeFromTransport(cause));
            return release(open, ENDPOINT_CLOSE_WAIT);
        });
    }

    @Override
    public Mono<Void> disposeGracefully(Duration timeout) {
        if (timeout == null || timeout.isNegative()) {
            return Mono.error(new InvalidRequestException("timeout must not be negative, got " + timeout));
        }
        return Mono.defer(() -> {
            if (!disposed.compareAndSet(false, true)) {
                return onDispose();
            }
            listeners.forEach(Listener::dispose);
            List<EndpointEngine> open = List.copyOf(endpoints);
            Mono<Void> drained = Flux.fromIterable(open)
                    .flatMap(e -> e.closeGracefully(timeout).onErrorResume(x -> Mono.empty()), Math.max(1, open.size()))
                    .then();
            // Each endpoint enforces the timeout itself; the margin only covers an endpoint whose loop is stuck.
            return drained.timeout(timeout.plusSeconds(5), Mono.empty())
                    .then(Mono.defer(() -> {
                        TransportException cause = new ResourceClosedException("transport was disposed");
                        List<EndpointEngine> left = List.copyOf(endpoints);
                        left.forEach(e -> e.closeFromTransport(cause));
                        return release(left, ENDPOINT_CLOSE_WAIT);
                    }));
        });
    }

    /**
     * Waits (without blocking) for {@code closing} to report closed, at most {@code wait} in all, then stops the
     * polling threads and releases memory and the backend's resources on a thread that may block.
     */
    private Mono<Void> release(List<EndpointEngine> closing, Duration wait) {
        return Flux.fromIterable(closing)
                .flatMap(EndpointEngine::onClose, Math.max(1, closing.size()))
                .then()
                .timeout(wait, Mono.fromRunnable(() -> log.warn("endpoints of {} did not close within {}", id, wait)))
                .publishOn(Schedulers.boundedElastic())
                .then(Mono.fromRunnable(this::releaseResources))
                .then(onDispose());
    }

    private void releaseResources() {
        progress.close();
        metrics.close();
        MEMORY.close(memory);
        try {
            closeResources();
        } catch (RuntimeException | Error e) {
            log.warn("closing {} failed", id, e);
        }
        onDispose.tryEmitEmpty();
    }

    /** Releases what the backend opened itself (fabric, domain, rings), after endpoints and memory are gone. */
    protected void closeResources() {
    }
}
