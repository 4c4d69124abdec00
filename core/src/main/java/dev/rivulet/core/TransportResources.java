package dev.rivulet.core;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.spi.TransportProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/**
 * Transports that a group of clients and servers share, one per kind of address, all with one configuration: what
 * Reactor Netty's {@code LoopResources} are to its event loops. Each transport (its polling threads, its registered
 * memory, its meters) is opened on first use by an address of its kind and serves every client and server
 * {@linkplain RivuletClient#runOn(TransportResources) running on} these resources; {@link #dispose()} closes them all,
 * with their endpoints and servers.
 *
 * <pre>{@code
 * TransportResources orders = TransportResources.create("orders", c -> c
 *         .progressThreads(2)
 *         .meterRegistry(registry));
 * Endpoint a = RivuletClient.create().runOn(orders).remoteAddress("uring://10.0.0.2:7000").connectNow();
 * Endpoint b = RivuletClient.create().runOn(orders).remoteAddress("uring://10.0.0.3:7000").connectNow(); // same transport
 * }</pre>
 *
 * "A kind of address" is a provider with the options its address implies (libfabric's provider, for instance), so
 * {@code fabric://…?provider=tcp} and {@code fabric://…?provider=shm} get a transport each. An implied option that
 * the configuration sets to another value is refused. The JVM's shared resources, used by clients and servers that
 * name neither resources, a transport nor a configuration of their own, are one such group:
 * {@link Transports#configureShared} configures them.
 */
public final class TransportResources implements Disposable {

    private static final Logger log = LoggerFactory.getLogger(TransportResources.class);

    private final String name;
    private final TransportConfig config;
    private final Map<String, Transport> open = new LinkedHashMap<>();
    private boolean disposed;

    private TransportResources(String name, TransportConfig config) {
        this.name = name;
        this.config = config;
    }

    /** Resources named {@code name} with the default configuration. */
    public static TransportResources create(String name) {
        return create(name, UnaryOperator.identity());
    }

    /** Resources named {@code name} (prefix of their transports' names) with the defaults changed by {@code change}. */
    public static TransportResources create(String name, UnaryOperator<TransportConfig> change) {
        if (name == null || name.isBlank()) {
            throw new InvalidRequestException("resources need a name");
        }
        TransportConfig c = Objects.requireNonNull(change.apply(TransportConfig.defaults()), "configuration");
        return new TransportResources(name, c);
    }

    public String name() {
        return name;
    }

    /** The configuration every transport of these resources opens with (plus the options its address implies). */
    public TransportConfig config() {
        return config;
    }

    /**
     * The transport of these resources for {@code address}'s kind, opened now if it is not open yet (which may block:
     * call it off polling threads, as {@link RivuletClient#connect()} does). A transport disposed on its own is
     * replaced. Fails with {@link ResourceClosedException} once these resources are disposed.
     */
    public synchronized Transport forAddress(String address) {
        if (disposed) {
            throw new ResourceClosedException("transport resources " + name + " are disposed");
        }
        TransportProvider p = provider(address);
        Map<String, String> implied = new TreeMap<>(p.optionsFor(address));
        String key = p.name() + implied.values().stream().map(v -> "-" + v).collect(Collectors.joining());
        Transport t = open.get(key);
        if (t != null && !t.isDisposed()) {
            return t;
        }
        t = Transports.open(p.name(), withImpliedOptions(config, address).name(name + "-" + key.replace('/', '-')));
        open.put(key, t);
        return t;
    }

    /**
     * The transports these resources opened, in the order they opened, one per kind of address: the open ones and
     * the ones that are closing or closed (on their own, or with these resources), until an address of their kind
     * opens a replacement. What a health check reads; use {@link #forAddress} to use one.
     */
    public synchronized List<Transport> transports() {
        return List.copyOf(open.values());
    }

    /** Whether any transport of these resources is open. */
    public synchronized boolean isInUse() {
        return open.values().stream().anyMatch(t -> !t.isDisposed());
    }

    /** Closes every transport of these resources now, with their endpoints and servers; later use is refused. */
    @Override
    public void dispose() {
        for (Transport t : takeAll()) {
            try {
                t.dispose();
            } catch (RuntimeException e) {
                log.warn("closing transport {} of resources {} failed", t.id(), name, e);
            }
        }
    }

    /** {@link #dispose()} without blocking: completes once every transport has closed. */
    public Mono<Void> disposeLater() {
        return Mono.defer(() -> Flux.fromIterable(takeAll()).flatMap(Transport::disposeLater).then());
    }

    @Override
    public synchronized boolean isDisposed() {
        return disposed;
    }

    /**
     * Marks these resources disposed: their transports to close, the first time only. They stay listed
     * ({@link #transports()}) while they close.
     */
    private synchronized List<Transport> takeAll() {
        if (disposed) {
            return List.of();
        }
        disposed = true;
        return new ArrayList<>(open.values());
    }

    @Override
    public String toString() {
        return "TransportResources[" + name + "]";
    }

    static TransportProvider provider(String address) {
        return Transports.forAddress(address).orElseThrow(() -> new InvalidRequestException(
                "no provider for address " + address + "; known: " + Transports.describe()));
    }

    /**
     * {@code config} with the options {@code address} implies for its provider added; an implied option the
     * configuration sets to another value is refused (the address and the configuration must agree).
     */
    static TransportConfig withImpliedOptions(TransportConfig config, String address) {
        TransportConfig c = config;
        for (var e : provider(address).optionsFor(address).entrySet()) {
            String given = c.options().get(e.getKey());
            if (given == null) {
                c = c.option(e.getKey(), e.getValue());
            } else if (!given.equals(e.getValue())) {
                throw new InvalidRequestException("address " + address + " implies " + e.getKey() + "=" + e.getValue()
                        + " but the configuration says " + given);
            }
        }
        return c;
    }
}
