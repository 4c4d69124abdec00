package dev.rivulet.samples.webflux.front;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.EndpointStats;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.Transport;
import dev.rivulet.samples.webflux.protocol.Control;
import dev.rivulet.samples.webflux.protocol.Control.Hello;
import dev.rivulet.samples.webflux.protocol.Control.Purpose;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.retry.Retry;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongFunction;
import java.util.function.Supplier;

/**
 * The front's link to the storage node: one control connection shared by every HTTP request (requests and answers
 * matched by correlation number), reconnected with exponential backoff whenever it is lost; event streams get a
 * connection each, so each has credits of its own. While the storage node is away, requests fail at once with
 * {@link StorageUnavailableException} (503), and the front recovers by itself when it comes back.
 */
public final class StorageClient implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(StorageClient.class);

    private final Transport transport;
    private final Supplier<String> address;
    private final Duration requestTimeout;
    private final Duration minBackoff;
    private final Duration maxBackoff;
    private final AtomicReference<Session> session = new AtomicReference<>();
    private final AtomicLong correlation = new AtomicLong();
    private final AtomicReference<String> lastFailure = new AtomicReference<>("not connected yet");
    private volatile boolean running;
    private volatile Disposable connecting;

    /** A live control connection and the requests waiting for its answers. */
    public static final class Session {
        private final Endpoint endpoint;
        private final Map<Long, Sinks.One<Control>> waiting = new ConcurrentHashMap<>();

        Session(Endpoint endpoint) {
            this.endpoint = endpoint;
        }

        /** The connection: grants made in answer to requests on it answer only operations on it. */
        public Endpoint endpoint() {
            return endpoint;
        }

        void answered(Control m) {
            Sinks.One<Control> s = waiting.remove(m.corr());
            if (s != null) {
                s.tryEmitValue(m);
            }
        }

        void failAll(RuntimeException e) {
            waiting.values().forEach(s -> s.tryEmitError(e));
            waiting.clear();
        }
    }

    public StorageClient(Transport transport, Supplier<String> address, Duration requestTimeout, Duration minBackoff,
                         Duration maxBackoff) {
        this.transport = transport;
        this.address = address;
        this.requestTimeout = requestTimeout;
        this.minBackoff = minBackoff;
        this.maxBackoff = maxBackoff;
    }

    /** The live session, or an error saying the storage node is away. */
    public Mono<Session> session() {
        return Mono.defer(() -> {
            Session s = session.get();
            return s != null ? Mono.just(s) : Mono.error(unavailable());
        });
    }

    /** Sends the request {@code make} builds (given its correlation number) on {@code s}; emits the answer. */
    public Mono<Control> request(Session s, LongFunction<Control> make) {
        return Mono.defer(() -> {
            long corr = correlation.incrementAndGet();
            Sinks.One<Control> answer = Sinks.one();
            s.waiting.put(corr, answer);
            return s.endpoint.send(Control.encode(make.apply(corr)))
                    .then(answer.asMono())
                    .timeout(requestTimeout, Mono.error(() -> new StorageUnavailableException(
                            "the storage node did not answer within " + requestTimeout)))
                    .onErrorMap(dev.rivulet.core.error.TransportException.class,
                            e -> new StorageUnavailableException("the storage node is unreachable: " + e.getMessage(),
                                    e))
                    .doFinally(sig -> s.waiting.remove(corr));
        });
    }

    /** {@link #request(Session, LongFunction)} on the current session. */
    public Mono<Reply> request(LongFunction<Control> make) {
        return session().flatMap(s -> request(s, make).map(m -> new Reply(s, m)));
    }

    /** An answer and the session it came on (whose endpoint the granted access is for). */
    public record Reply(Session session, Control message) {
    }

    /**
     * The storage node's events, on a connection of their own for as long as the subscriber wants them: its demand
     * is the connection's credits, so a slow subscriber slows the storage node's sending.
     */
    public Flux<String> events() {
        return Flux.usingWhen(connect(Purpose.EVENTS),
                ep -> ep.receive().asString(),
                ep -> ep.closeGracefully(Duration.ofSeconds(1)).onErrorComplete(),
                (ep, e) -> { ep.dispose(); return Mono.empty(); },
                ep -> { ep.dispose(); return Mono.empty(); });
    }

    private Mono<Endpoint> connect(Purpose purpose) {
        return Mono.defer(() -> RivuletClient.create().runOn(transport).remoteAddress(address.get()).connect())
                .onErrorMap(e -> new StorageUnavailableException("cannot reach the storage node at " + address.get()
                        + ": " + e.getMessage(), e))
                .flatMap(ep -> ep.send(Control.encode(new Hello(0, purpose))).thenReturn(ep)
                        .doOnError(e -> ep.dispose()));
    }

    /** Whether a control connection is up. */
    public boolean isUp() {
        return session.get() != null;
    }

    /** Why the storage node is not reachable, when it is not. */
    public String lastFailure() {
        return lastFailure.get();
    }

    /** The control connection's flow-control counters, when it is up. */
    public Mono<EndpointStats> stats() {
        return session().flatMap(s -> s.endpoint.stats());
    }

    public String storageAddress() {
        return address.get();
    }

    private StorageUnavailableException unavailable() {
        return new StorageUnavailableException("the storage node at " + address.get() + " is not reachable ("
                + lastFailure.get() + "); reconnecting");
    }

    @Override
    public void start() {
        running = true;
        reconnect();
    }

    private void reconnect() {
        if (!running) {
            return;
        }
        connecting = connect(Purpose.CONTROL)
                .doOnError(e -> lastFailure.set(e.getMessage()))
                .retryWhen(Retry.backoff(Long.MAX_VALUE, minBackoff).maxBackoff(maxBackoff).filter(e -> running))
                .subscribe(this::opened, e -> log.warn("gave up connecting to the storage node", e));
    }

    private void opened(Endpoint ep) {
        Session s = new Session(ep);
        ep.receive().asByteArray().map(Control::decode).subscribe(s::answered, e -> { });
        session.set(s);
        lastFailure.set("connected");
        log.info("connected to the storage node at {}", ep.remoteAddress());
        ep.closeReason().subscribe(reason -> {
            session.compareAndSet(s, null);
            String why = "connection " + reason.kind().name().toLowerCase(java.util.Locale.ROOT)
                    + (reason.cause() != null ? ": " + reason.cause().getMessage() : "");
            lastFailure.set(why);
            s.failAll(new StorageUnavailableException("lost the storage node (" + why + ")"));
            if (running) {
                log.warn("lost the storage node at {} ({}); reconnecting", address.get(), why);
                reconnect();
            }
        });
    }

    @Override
    public void stop() {
        running = false;
        Disposable c = connecting;
        if (c != null) {
            c.dispose();
        }
        Session s = session.getAndSet(null);
        if (s != null) {
            s.endpoint.closeGracefully(Duration.ofSeconds(5)).onErrorComplete().block(Duration.ofSeconds(10));
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** After the storage node (in a process running both), before the HTTP server. */
    @Override
    public int getPhase() {
        return 10;
    }
}
