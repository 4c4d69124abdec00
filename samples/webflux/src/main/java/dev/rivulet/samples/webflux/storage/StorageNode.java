package dev.rivulet.samples.webflux.storage;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.samples.webflux.protocol.Control;
import dev.rivulet.samples.webflux.protocol.Control.Allocate;
import dev.rivulet.samples.webflux.protocol.Control.Commit;
import dev.rivulet.samples.webflux.protocol.Control.Delete;
import dev.rivulet.samples.webflux.protocol.Control.Failed;
import dev.rivulet.samples.webflux.protocol.Control.Granted;
import dev.rivulet.samples.webflux.protocol.Control.Hello;
import dev.rivulet.samples.webflux.protocol.Control.Lookup;
import dev.rivulet.samples.webflux.protocol.Control.Ok;
import dev.rivulet.samples.webflux.protocol.Control.Purpose;
import dev.rivulet.samples.webflux.protocol.Control.Reason;
import dev.rivulet.samples.webflux.protocol.Control.Release;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The storage node: a Rivulet server whose connections are either a control channel (a front allocating, looking up,
 * committing and releasing blocks, each answer a grant of exactly one block's window to exactly that connection) or an
 * event stream (as fast as the reader's credits allow, or at a configured rate).
 *
 * <p>Started and stopped with the Spring context: stopping lets work in flight finish ({@code disposeGracefully}).
 */
public final class StorageNode implements SmartLifecycle, MeterBinder {

    private static final Logger log = LoggerFactory.getLogger(StorageNode.class);

    private final Transport transport;
    private final String bindAddress;
    private final BlockStore store;
    private final int eventsPerSecond;
    private final Sinks.Empty<Void> stopping = Sinks.empty();
    private final AtomicLong eventsSent = new AtomicLong();
    private final AtomicLong requests = new AtomicLong();
    private final Set<Endpoint> eventReaders = ConcurrentHashMap.newKeySet();
    private volatile RivuletServer.BoundServer server;

    public StorageNode(Transport transport, String bindAddress, BlockStore store, int eventsPerSecond) {
        this.transport = transport;
        this.bindAddress = bindAddress;
        this.store = store;
        this.eventsPerSecond = eventsPerSecond;
    }

    /** Where fronts connect (with the real port once started). */
    public String address() {
        RivuletServer.BoundServer s = server;
        return s == null ? bindAddress : s.address();
    }

    public BlockStore store() {
        return store;
    }

    /** Event messages sent so far, over every event stream. */
    public long eventsSent() {
        return eventsSent.get();
    }

    /** The flow-control counters of every event stream now open (what a slow reader does to its sender). */
    public Flux<EndpointStats> eventStreamStats() {
        return Flux.fromIterable(List.copyOf(eventReaders)).flatMap(Endpoint::stats);
    }

    /** Endpoints currently served: control channels and event streams. */
    public int connections() {
        RivuletServer.BoundServer s = server;
        return s == null ? 0 : s.connections();
    }

    @Override
    public void start() {
        server = RivuletServer.create().runOn(transport).bindAddress(bindAddress).handle(this::serve).bindNow();
        log.info("storage node listening at {} ({} of registered memory)", server.address(), store.capacity());
    }

    @Override
    public void stop() {
        RivuletServer.BoundServer s = server;
        if (s == null) {
            return;
        }
        stopping.tryEmitEmpty(); // event streams end; control requests already sent are answered
        s.disposeGracefully(Duration.ofSeconds(10)).block(Duration.ofSeconds(15));
        server = null;
    }

    @Override
    public boolean isRunning() {
        return server != null;
    }

    /** After the transport starts, before the HTTP server. */
    @Override
    public int getPhase() {
        return 0;
    }

    private Publisher<Void> serve(Endpoint ep) {
        Connection c = new Connection(ep);
        return ep.receive().asByteArray().map(Control::decode)
                .switchOnFirst((first, all) -> {
                    if (first.get() instanceof Hello h && h.purpose() == Purpose.EVENTS) {
                        return Flux.merge(all.skip(1).then(), events(ep));
                    }
                    if (first.get() instanceof Hello h && h.purpose() == Purpose.CONTROL) {
                        return all.skip(1).concatMap(m -> ep.send(Control.encode(c.answer(m))));
                    }
                    return Mono.error(new IllegalArgumentException("a connection starts with a hello, not "
                            + first));
                })
                .then()
                .doFinally(s -> c.close());
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

    /** One control connection: the accesses it was granted, ended when it closes. */
    private final class Connection {
        private final Endpoint ep;
        private final Map<Long, Held> held = new ConcurrentHashMap<>();
        private final AtomicLong tokens = new AtomicLong();

        private record Held(Grant grant, BlockStore.Extent extent, boolean write) {
        }

        Connection(Endpoint ep) {
            this.ep = ep;
        }

        Control answer(Control m) {
            requests.incrementAndGet();
            return switch (m) {
                case Allocate a -> allocate(a);
                case Lookup l -> lookup(l);
                case Commit c -> commit(c);
                case Release r -> release(r);
                case Delete d -> store.delete(d.id()) ? new Ok(d.corr())
                        : new Failed(d.corr(), Reason.NOT_FOUND, "no block " + d.id());
                default -> new Failed(m.corr(), Reason.BAD_REQUEST, "not a request: " + m.getClass().getSimpleName());
            };
        }

        private Control allocate(Allocate a) {
            if (a.size() < 0 || a.size() > store.maxBlockSize()) {
                return new Failed(a.corr(), Reason.TOO_LARGE, "a block holds at most " + store.maxBlockSize()
                        + " bytes, not " + a.size());
            }
            BlockStore.Extent e = store.reserve(a.size());
            if (e == null) {
                return new Failed(a.corr(), Reason.FULL, "no room for " + a.size() + " more bytes");
            }
            Grant g = ep.grant(store.window(e, a.size()), Access.REMOTE_WRITE);
            long token = tokens.incrementAndGet();
            held.put(token, new Held(g, e, true));
            return new Granted(a.corr(), token, a.size(), g.remote().toBytes());
        }

        private Control lookup(Lookup l) {
            BlockStore.Extent e = store.startReading(l.id());
            if (e == null) {
                return new Failed(l.corr(), Reason.NOT_FOUND, "no block " + l.id());
            }
            Grant g = ep.grant(store.window(e, e.length), Access.REMOTE_READ);
            long token = tokens.incrementAndGet();
            held.put(token, new Held(g, e, false));
            return new Granted(l.corr(), token, e.length, g.remote().toBytes());
        }

        private Control commit(Commit c) {
            Held h = held.remove(c.token());
            if (h == null || !h.write() || c.length() < 0 || c.length() > h.extent().capacity) {
                if (h != null) {
                    held.put(c.token(), h);
                }
                return new Failed(c.corr(), Reason.BAD_REQUEST, "no write under token " + c.token()
                        + " that holds " + c.length() + " bytes");
            }
            h.grant().close();
            store.commit(c.id(), h.extent(), c.length());
            return new Ok(c.corr());
        }

        private Control release(Release r) {
            Held h = held.remove(r.token());
            if (h == null) {
                return new Failed(r.corr(), Reason.NOT_FOUND, "no access under token " + r.token());
            }
            end(h);
            return new Ok(r.corr());
        }

        private void end(Held h) {
            h.grant().close();
            if (h.write()) {
                store.abandon(h.extent());
            } else {
                store.doneReading(h.extent());
            }
        }

        /** The connection is gone: its grants were revoked with it; room it reserved and reads it held end. */
        void close() {
            for (Long token : held.keySet()) {
                Held h = held.remove(token);
                if (h != null) {
                    end(h);
                }
            }
        }
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
                .description("Control requests answered").register(registry);
    }
}
