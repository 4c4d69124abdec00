package dev.rivulet.core.local;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Operation;
import dev.rivulet.core.Ordering;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.engine.EndpointEngine;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.NativeRegistration;
import dev.rivulet.core.metrics.TransportMetrics;
import dev.rivulet.core.progress.ProgressEngine;
import io.micrometer.core.instrument.binder.MeterBinder;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The in-JVM transport: endpoints in one JVM that copy between registered segments, with the same credits, queue
 * depths, NO_RESOURCE parking, RMA, atomics and flush semantics as a hardware transport. The embedded default, and
 * what users' own unit tests can run on.
 *
 * <p>Options: {@code local.nativeQueueDepth} (work-queue slots per endpoint, default 64: smaller than the default
 * send depth on purpose, so the parking path runs in ordinary use) and {@code local.maxMessageSize} (default
 * 16 MiB).
 */
public final class LocalTransport implements Transport {

    static final String NAME = "local";

    private final TransportConfig config;
    private final ProgressEngine progress;
    private final MemoryDomain memory;
    private final TransportMetrics metrics;
    private final Capabilities caps;
    private final int nativeDepth;
    private final Set<EndpointEngine> endpoints = ConcurrentHashMap.newKeySet();
    private final Set<LocalListener> listeners = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean disposed = new AtomicBoolean();
    private final Sinks.Empty<Void> onDispose = Sinks.empty();

    LocalTransport(TransportConfig config) {
        this.config = config;
        this.nativeDepth = config.intOption("local.nativeQueueDepth", 64);
        long maxMessage = config.intOption("local.maxMessageSize", 16 << 20);
        this.progress = new ProgressEngine(NAME, config.progressThreads(), config.idleStrategy());
        this.memory = new MemoryDomain(NAME, LocalTransport::register);
        this.metrics = new TransportMetrics(NAME, progress::busyRatio);
        if (config.meterRegistry() != null) {
            metrics.bindTo(config.meterRegistry());
        }
        this.caps = new Capabilities(NAME, EnumSet.allOf(Operation.class), maxMessage, 0, 1,
                EnumSet.allOf(Ordering.class), config.sendQueueDepth(), config.receiveQueueDepth(), 10e9,
                Duration.ofNanos(1_000),
                "every earlier send is in a buffer of the peer and every earlier put and atomic is applied to the "
                        + "peer's memory (completions are reported only after the copy)");
    }

    /** Local registration: nothing to pin; the key is the domain's random proposal, addresses are virtual. */
    private static NativeRegistration register(MemorySegment segment, Set<?> access, long proposedKey) {
        return new NativeRegistration(proposedKey, segment.address(), MemorySegment.NULL, null, null);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    @Override
    public MemoryDomain memory() {
        return memory;
    }

    @Override
    public Mono<Endpoint> connect(String address) {
        return Mono.defer(() -> {
            if (disposed.get()) {
                return Mono.error(new ResourceClosedException("transport is disposed"));
            }
            String name = LocalFabric.nameOf(address);
            LocalListener listener = LocalFabric.lookup(name);
            if (listener == null || listener.isDisposed()) {
                return Mono.error(new ConnectionRefusedException("nobody listens at " + address));
            }
            LocalTransport server = listener.transport();
            LocalWire mine = new LocalWire(progress.nextLoop(), memory, caps, nativeDepth, address);
            LocalWire theirs = new LocalWire(server.progress.nextLoop(), server.memory, server.caps,
                    server.nativeDepth, "local://client@" + Integer.toHexString(System.identityHashCode(mine)));
            LocalWire.connect(mine, theirs);
            EndpointEngine client = newEndpoint(mine);
            EndpointEngine accepted = server.newEndpoint(theirs);
            if (!listener.accept(accepted)) {
                client.closeFromTransport(new ConnectionRefusedException("listener at " + address + " went away"));
                accepted.closeFromTransport(new ConnectionRefusedException("listener went away"));
                return Mono.error(new ConnectionRefusedException("listener at " + address + " went away"));
            }
            return Mono.just(client);
        });
    }

    private EndpointEngine newEndpoint(LocalWire wire) {
        EndpointEngine[] self = new EndpointEngine[1];
        EndpointEngine e = new EndpointEngine(wire, wireLoop(wire), memory, metrics, config.observer(),
                config.sendPrefetch(), () -> endpoints.remove(self[0]));
        self[0] = e;
        endpoints.add(e);
        e.start();
        return e;
    }

    private static dev.rivulet.core.progress.ProgressLoop wireLoop(LocalWire w) {
        return w.loop();
    }

    @Override
    public Mono<Listener> bind(String address) {
        return Mono.fromCallable(() -> {
            if (disposed.get()) {
                throw new ResourceClosedException("transport is disposed");
            }
            String name = LocalFabric.nameOf(address);
            LocalListener l = new LocalListener(this, name);
            if (!LocalFabric.bind(name, l)) {
                throw new InvalidRequestException("local://" + name + " is already bound");
            }
            listeners.add(l);
            return l;
        });
    }

    void forget(LocalListener l) {
        listeners.remove(l);
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

    @Override
    public Mono<Void> onDispose() {
        return onDispose.asMono();
    }

    @Override
    public boolean isDisposed() {
        return disposed.get();
    }

    /** Closes listeners and endpoints (peers see a graceful close), stops the polling threads, frees memory. */
    @Override
    public void dispose() {
        if (!disposed.compareAndSet(false, true)) {
            return;
        }
        listeners.forEach(LocalListener::dispose);
        ResourceClosedException cause = new ResourceClosedException("transport was disposed");
        endpoints.forEach(e -> e.closeFromTransport(cause));
        progress.close();
        memory.close();
        onDispose.tryEmitEmpty();
    }
}
