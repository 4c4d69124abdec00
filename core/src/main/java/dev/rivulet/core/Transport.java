package dev.rivulet.core;

import dev.rivulet.core.memory.MemoryDomain;
import io.micrometer.core.instrument.binder.MeterBinder;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * A device with its progress engine and memory domain (UCT's worker + iface + md). Endpoints made by one transport
 * share its polling threads and its registered memory.
 */
public interface Transport extends Disposable {

    /** Provider name, e.g. {@code local}, {@code libfabric/tcp}. */
    String name();

    Capabilities capabilities();

    /** Where memory is registered for this transport's endpoints. */
    MemoryDomain memory();

    /** Connects to a listener at {@code address} (the provider's URI form, e.g. {@code local://orders}). */
    Mono<Endpoint> connect(String address);

    /** Starts accepting at {@code address}. */
    Mono<Listener> bind(String address);

    /** The polling threads as a Reactor scheduler, for short non-blocking work only. */
    Scheduler scheduler();

    /** Micrometer meters of this transport ({@code rivulet.*}); bind it to a registry to publish them. */
    MeterBinder metrics();

    /** Completes when the transport has closed every endpoint and released its resources. */
    Mono<Void> onDispose();
}
