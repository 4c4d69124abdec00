package dev.rivulet.samples.webflux.storage;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.interaction.InteractionOptions;
import dev.rivulet.core.interaction.Interactions;
import dev.rivulet.core.interaction.Payload;
import dev.rivulet.core.interaction.Router;
import dev.rivulet.samples.webflux.protocol.Control;
import dev.rivulet.samples.webflux.protocol.Control.Allocate;
import dev.rivulet.samples.webflux.protocol.Control.Commit;
import dev.rivulet.samples.webflux.protocol.Control.Committed;
import dev.rivulet.samples.webflux.protocol.Control.Delete;
import dev.rivulet.samples.webflux.protocol.Control.Hello;
import dev.rivulet.samples.webflux.protocol.Control.Lookup;
import dev.rivulet.samples.webflux.protocol.Control.Ok;
import dev.rivulet.samples.webflux.protocol.Control.Purpose;
import dev.rivulet.samples.webflux.protocol.Refusal;
import dev.rivulet.samples.webflux.protocol.Refusal.Reason;
import dev.rivulet.spring.boot.autoconfigure.TransportResourcesLifecycle;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The storage node: a Rivulet server whose connections are either a control connection (an interaction session whose
 * routes write, read and delete blocks, each write or read a grant of exactly one block's window to exactly that
 * connection, for as long as its request is open) or an event stream (as fast as the reader's credits allow, or at a
 * configured rate).
 *
 * <p>Started and stopped with the Spring context: stopping lets work in flight finish ({@code disposeGracefully}).
 */
public final class StorageNode implements SmartLifecycle, MeterBinder {

    private static final Logger log = LoggerFactory.getLogger(StorageNode.class);

    /**
     * Stops after the HTTP server (whose requests in a process running both roles still need it) and before the
     * starter closes the transports.
     */
    public static final int PHASE = TransportResourcesLifecycle.PHASE + 1024;

    private final RivuletServer server;
    private final String bindAddress;
    private final BlockStore store;
    private final int eventsPerSecond;
    private final InteractionOptions options;
    private final Sinks.Empty<Void> stopping = Sinks.empty();
    private final AtomicLong eventsSent = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();
    private final AtomicLong cancelled = new AtomicLong();
    private final AtomicInteger accesses = new AtomicInteger();
    private final Set<Endpoint> eventReaders = ConcurrentHashMap.newKeySet();
    private volatile RivuletServer.@Nullable BoundServer bound;

    /** A node serving {@code store} with {@code server} (the application's builder) at {@code bindAddress}. */
    public StorageNode(RivuletServer server, String bindAddress, BlockStore store, int eventsPerSecond,
                       InteractionOptions options) {
        this.server = server;
        this.options = options;
        this.bindAddress = bindAddress;
        this.store = store;
        this.eventsPerSecond = eventsPerSecond;
    }

    /** Where fronts connect (with the real port once started). */
    public String address() {
        RivuletServer.BoundServer s = bound;
        return s == null ? bindAddress : s.address();
    }

    public BlockStore store() {
        return store;
    }

    /** Event messages sent so far, over every event stream. */
    public long eventsSent() {
        return eventsSent.get();
    }

    /**
     * Storage requests the front cancelled: every read, since cancelling is how the front says it is done reading,
     * and the writes it abandoned (an HTTP client went away, a timeout).
     */
    public long cancelledRequests() {
        return cancelled.get();
    }

    /** Block windows granted now: writes not yet committed and reads not yet done. */
    public int openAccesses() {
        return accesses.get();
    }

    /** The flow-control counters of every event stream now open (what a slow reader does to its sender). */
    public Flux<EndpointStats> eventStreamStats() {
        return Flux.fromIterable(List.copyOf(eventReaders)).flatMap(Endpoint::stats);
    }

    /** Endpoints currently served: control channels and event streams. */
    public int connections() {
        RivuletServer.BoundServer s = bound;
        return s == null ? 0 : s.connections();
    }

    @Override
    public void start() {
        RivuletServer.BoundServer s = server.bindAddress(bindAddress).handle(this::serve).bindNow();
        bound = s;
        log.info("storage node listening at {} ({} of registered memory)", s.address(), store.capacity());
    }

    @Override
    public void stop() {
        RivuletServer.BoundServer s = bound;
        if (s == null) {
            return;
        }
        stopping.tryEmitEmpty(); // event streams end; storage requests already sent are answered
        s.disposeGracefully(Duration.ofSeconds(10)).block(Duration.ofSeconds(15));
        bound = null;
    }

    @Override
    public boolean isRunning() {
        return bound != null;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    /**
     * A connection's first message, a plain one, says what it is for; asking for that one message only, nothing else
     * is taken from {@code receive()} before the session (or the event stream) subscribes it in turn.
     */
    private Publisher<Void> serve(Endpoint ep) {
        return ep.receive().asByteArray().take(1, true).next()
                .map(Control::decode)
                .flatMap(first -> switch (first) {
                    case Hello h when h.purpose() == Purpose.CONTROL -> Interactions.server(ep, router(ep), options)
                            .onClose();
                    case Hello h -> Flux.merge(ep.receive().then(), events(ep)).then();
                    default -> Mono.error(new IllegalArgumentException("a connection starts with a hello, not "
                            + first));
                });
    }

    /** Events for one reader: as fast as its credits allow, or at the configured rate; they end when we stop. */
    private Mono<Void> events(Endpoint ep) {
        eventReaders.add(ep);
        ep.onClose().subscribe(null, null, () -> eventReaders.remove(ep));
        Flux<String> events = Flux.generate(() -> 0L, (seq, sink) -> {
            sink.next("{\"seq\":" + seq + ",\"blocks\":" + store.blockCount() + ",\"usedBytes\":"
                    + store.usedBytes() + ",\"at\":" + System.currentTimeMillis() + "}");
            return seq + 1;
        });
        if (eventsPerSecond > 0) {
            events = events.delayElements(Duration.ofNanos(1_000_000_000L / eventsPerSecond));
        }
        // A reader that goes away (its HTTP client left) ends its stream: that is how event streams end, not a fault.
        return ep.sendString(events.doOnNext(e -> eventsSent.incrementAndGet()).takeUntilOther(stopping.asMono()))
                .onErrorResume(TransportException.class, e -> Mono.empty());
    }

    /**
     * The storage operations of one control connection, a route each. Windows are granted to this connection only,
     * and each lasts as long as the request that asked for it ({@link BlockAccess}).
     */
    private Router router(Endpoint ep) {
        return Router.builder()
                .requestChannel(Control.WRITE_ROUTE.route(), (open, rest) -> write(ep, open, rest))
                .requestStream(Control.READ_ROUTE.route(), request -> read(ep, request))
                .requestResponse(Control.DELETE_ROUTE.route(), this::delete)
                .build();
    }

    /** Grants room for the block, then waits for the commit; a channel that ends without one gives the room back. */
    private Flux<Payload> write(Endpoint ep, Payload open, Flux<Payload> rest) {
        requests.incrementAndGet();
        Allocate a = request(open, Allocate.class);
        return held(() -> BlockAccess.write(store, ep, a.size()), access -> Flux.concat(
                Mono.just(Control.payload(access.granted())),
                rest.next()
                        .map(commit -> {
                            request(commit, Commit.class);
                            return Control.payload(new Committed(access.commit(a.id())));
                        })
                        .switchIfEmpty(Mono.error(() -> new Refusal(Reason.BAD_REQUEST, "the write of " + a.id()
                                + " ended without a commit")))));
    }

    /** Grants read access to the block until the front cancels the stream: the grant is all it answers. */
    private Flux<Payload> read(Endpoint ep, Payload request) {
        requests.incrementAndGet();
        Lookup l = request(request, Lookup.class);
        return held(() -> BlockAccess.read(store, ep, l.id()),
                access -> Mono.just(Control.payload(access.granted())).concatWith(Flux.never()));
    }

    private Mono<Payload> delete(Payload request) {
        requests.incrementAndGet();
        return Mono.fromCallable(() -> {
            Delete d = request(request, Delete.class);
            if (!store.delete(d.id())) {
                throw new Refusal(Reason.NOT_FOUND, "no block " + d.id());
            }
            return Control.payload(new Ok());
        });
    }

    /** {@code answers} for an access held from subscription until they end, however they end. */
    private Flux<Payload> held(Supplier<BlockAccess> open, Function<BlockAccess, Flux<Payload>> answers) {
        return Flux.using(() -> {
                    BlockAccess access = open.get();
                    accesses.incrementAndGet();
                    return access;
                }, answers, access -> {
                    access.end();
                    accesses.decrementAndGet();
                })
                .doOnCancel(cancelled::incrementAndGet);
    }

    /** The message {@code p} carries, or the refusal that ends just this request when it is no {@code type}. */
    private static <T extends Control> T request(Payload p, Class<T> type) {
        Control m;
        try {
            m = Control.decode(p);
        } catch (IllegalArgumentException e) {
            throw new Refusal(Reason.BAD_REQUEST, e.getMessage());
        }
        if (!type.isInstance(m)) {
            throw new Refusal(Reason.BAD_REQUEST, "expected " + type.getSimpleName() + ", not " + m);
        }
        return type.cast(m);
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("rivulet.webflux.storage.blocks", store, BlockStore::blockCount)
                .description("Blocks the storage node holds").register(registry);
        Gauge.builder("rivulet.webflux.storage.used", store, BlockStore::usedBytes).baseUnit("bytes")
                .description("Registered memory the blocks take").register(registry);
        FunctionCounter.builder("rivulet.webflux.storage.events", eventsSent, AtomicLong::get)
                .description("Event messages sent").register(registry);
        FunctionCounter.builder("rivulet.webflux.storage.requests", requests, AtomicLong::get)
                .description("Storage requests received").register(registry);
        FunctionCounter.builder("rivulet.webflux.storage.cancelled", cancelled, AtomicLong::get)
                .description("Storage requests the front cancelled: reads done, writes abandoned").register(registry);
        Gauge.builder("rivulet.webflux.storage.accesses", accesses, AtomicInteger::get)
                .description("Block windows granted now, each held by an open request").register(registry);
    }
}
