package dev.rivulet.core;

import dev.rivulet.core.memory.MemoryDomain;
import io.micrometer.core.instrument.binder.MeterBinder;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

import java.time.Duration;
import java.util.Optional;

/**
 * A device with its progress engine and memory domain (UCT's worker + iface + md). Endpoints made by one transport
 * share its polling threads and its registered memory.
 */
public interface Transport extends Disposable {

    /** Provider name, e.g. {@code local}, {@code libfabric/tcp}. */
    String name();

    /**
     * This transport's own name ({@link TransportConfig#name(String)}, or the provider name and a sequence number):
     * the {@code name} tag of its meters.
     */
    String id();

    Capabilities capabilities();

    /** Where memory is registered for this transport's endpoints. */
    MemoryDomain memory();

    /** Connects to a listener at {@code address} (the provider's URI form, e.g. {@code local://orders}). */
    Mono<Endpoint> connect(String address);

    /** Starts accepting at {@code address}. */
    Mono<Listener> bind(String address);

    /**
     * Every polling thread as one Reactor scheduler (a worker stays on one thread), for short non-blocking work only:
     * these threads carry Reactor's {@code NonBlocking} marker, so {@code block()} on them fails at once.
     */
    Scheduler scheduler();

    /**
     * Micrometer meters of this transport ({@code rivulet.*}, tagged {@code transport} and {@code name}); bind it to
     * a registry to publish them. They are removed from the registry when the transport is disposed.
     */
    MeterBinder metrics();

    /**
     * A facility of this transport beyond the common API, looked up by the type a module asks for: how other
     * modules (the {@code gpu} module, a third party's extension) reach what only some transports offer without
     * knowing their classes. {@code dev.rivulet.core.spi.DeviceMemoryRegistrar} (device memory handed to the
     * provider as it is) on libfabric transports, {@code dev.rivulet.core.loop.ProgressEngine} (the polling threads,
     * for work driven from them) on every Rivulet transport. Empty when this transport has none of that type.
     */
    default <T> Optional<T> extension(Class<T> type) {
        return Optional.empty();
    }

    /** Completes when the transport has closed every endpoint and released its resources. */
    Mono<Void> onDispose();

    /**
     * Closes now: listeners stop, every endpoint closes as {@link Endpoint#dispose()} does (pending operations fail
     * with {@code ResourceClosedException}), then polling threads, memory and native resources are released. The
     * returned {@code Mono} does the work on subscription, without blocking the subscribing thread, and completes when
     * it is done.
     */
    Mono<Void> disposeLater();

    /**
     * Closes once the work under way is done: listeners stop accepting at once, every endpoint closes as
     * {@link Endpoint#closeGracefully(Duration)} does (all of them at the same time, each within {@code timeout}),
     * then resources are released as {@link #disposeLater()} does.
     */
    Mono<Void> disposeGracefully(Duration timeout);

    /**
     * {@link #disposeLater()}, waited for (up to ten seconds) unless called on a non-blocking thread such as a
     * polling thread, where it only starts the close.
     */
    @Override
    void dispose();
}
