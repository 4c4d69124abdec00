package dev.rivulet.core;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.resume.ResumableSession;
import dev.rivulet.core.resume.ResumeAcceptor;
import dev.rivulet.core.resume.ResumeSpec;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Accepts Rivulet endpoints, in Reactor Netty's style. Each accepted endpoint is given to the {@link #handle}
 * function; when the {@code Publisher<Void>} it returns terminates, the endpoint is closed. A handler that throws,
 * returns {@code null} or signals an error costs that one endpoint (closed, the failure logged); the server keeps
 * accepting.
 *
 * <pre>{@code
 * BoundServer server = RivuletServer.create()
 *         .bindAddress("local://orders")
 *         .handle(ep -> ep.receive().asString().doOnNext(log::info).then())
 *         .bindNow();
 * }</pre>
 *
 * Like {@link RivuletClient}, a server runs on the JVM's shared transport for its address by default, on a given
 * one or on a group's {@link TransportResources} with {@code runOn}, or on one of its own with {@link #config} or
 * {@link #metrics} (closed with the server).
 */
public final class RivuletServer {

    private static final Logger log = LoggerFactory.getLogger(RivuletServer.class);

    private final @Nullable String address;
    private final @Nullable Transport transport;
    private final @Nullable TransportResources resources;
    private final @Nullable TransportConfig config;
    private final Function<? super Endpoint, ? extends Publisher<Void>> handler;
    private final Consumer<? super Endpoint> onConnection;

    private RivuletServer(@Nullable String address, @Nullable Transport transport,
                          @Nullable TransportResources resources, @Nullable TransportConfig config,
                          Function<? super Endpoint, ? extends Publisher<Void>> handler,
                          Consumer<? super Endpoint> onConnection) {
        this.address = address;
        this.transport = transport;
        this.resources = resources;
        this.config = config;
        this.handler = handler;
        this.onConnection = onConnection;
    }

    public static RivuletServer create() {
        return new RivuletServer(null, null, null, null, ep -> Mono.never(), ep -> { });
    }

    public RivuletServer bindAddress(String address) {
        return new RivuletServer(address, transport, resources, config, handler, onConnection);
    }

    /** Uses an existing transport; it stays open after the server is disposed. */
    public RivuletServer runOn(Transport transport) {
        requireNoOwnConfig("run on a given transport");
        return new RivuletServer(address, Objects.requireNonNull(transport, "transport"), null, null, handler,
                onConnection);
    }

    /**
     * Runs on the transport {@code resources} hold for the bind address's kind (shared with every client and server
     * running on them; it stays open after the server is disposed, until the resources are).
     */
    public RivuletServer runOn(TransportResources resources) {
        requireNoOwnConfig("run on given resources");
        return new RivuletServer(address, null, Objects.requireNonNull(resources, "resources"), null, handler,
                onConnection);
    }

    private void requireNoOwnConfig(String what) {
        if (config != null) {
            throw new InvalidRequestException("this server has a configuration of its own (config or metrics); it "
                    + "cannot also " + what + ": configure that transport or those resources instead");
        }
    }

    /** Gives the server a transport of its own with this configuration, closed with the server. */
    public RivuletServer config(UnaryOperator<TransportConfig> change) {
        if (transport != null || resources != null) {
            throw new InvalidRequestException("this server runs on a given transport or on given resources, whose "
                    + "configuration is fixed: configure that transport or those resources instead");
        }
        TransportConfig c = change.apply(config != null ? config : TransportConfig.defaults());
        return new RivuletServer(address, null, null, Objects.requireNonNull(c, "config"), handler, onConnection);
    }

    public RivuletServer metrics(MeterRegistry registry) {
        return config(c -> c.meterRegistry(registry));
    }

    public RivuletServer handle(Function<? super Endpoint, ? extends Publisher<Void>> handler) {
        return new RivuletServer(address, transport, resources, config, Objects.requireNonNull(handler), onConnection);
    }

    /**
     * Serves {@link ResumableSession}s (clients connect with {@link RivuletClient#connectResumable}): {@code handler}
     * gets each new session, which ends when the publisher it returns terminates. A session whose connection is lost
     * is kept for {@link ResumeSpec#sessionTimeout()}, for its client to resume it on a new connection; a resume of a
     * session this server does not hold is refused. {@link #doOnConnection} still sees each connection.
     */
    public RivuletServer handleResumable(ResumeSpec spec,
                                         Function<? super ResumableSession, ? extends Publisher<Void>> handler) {
        return handle(ResumeAcceptor.create(spec, handler));
    }

    public RivuletServer doOnConnection(Consumer<? super Endpoint> hook) {
        return new RivuletServer(address, transport, resources, config, handler, Objects.requireNonNull(hook));
    }

    /** Binds on subscription (opening a transport, if it needs one, off the subscribing thread). */
    public Mono<BoundServer> bind() {
        return Mono.defer(() -> {
            if (address == null) {
                return Mono.error(new InvalidRequestException("bindAddress is not set"));
            }
            boolean own = config != null;
            TransportResources r = resources;
            Mono<Transport> opened = transport != null ? Mono.just(transport)
                    : Mono.fromCallable(() -> own ? openOwnTransport()
                                    : r != null ? r.forAddress(address) : Transports.shared(address))
                            .subscribeOn(Schedulers.boundedElastic());
            return opened.flatMap(t -> t.bind(address)
                    .map(listener -> new BoundServer(listener, t, own, this))
                    .doOnError(e -> {
                        if (own) {
                            t.disposeLater().subscribe();
                        }
                    }));
        });
    }

    private Transport openOwnTransport() {
        return Transports.open(TransportResources.provider(address).name(),
                TransportResources.withImpliedOptions(config, address));
    }

    public BoundServer bindNow(Duration timeout) {
        return bind().block(timeout);
    }

    public BoundServer bindNow() {
        return bindNow(Duration.ofSeconds(30));
    }

    /** A bound server: its address, its transport, the endpoints it serves, and how to stop it. */
    public static final class BoundServer implements Disposable {
        private final Listener listener;
        private final Transport transport;
        private final boolean ownsTransport;
        private final RivuletServer server;
        private final Set<Endpoint> serving = ConcurrentHashMap.newKeySet();
        private final Disposable accepting;

        BoundServer(Listener listener, Transport transport, boolean ownsTransport, RivuletServer server) {
            this.listener = listener;
            this.transport = transport;
            this.ownsTransport = ownsTransport;
            this.server = server;
            this.accepting = listener.accepted().subscribe(this::serve, e -> {
                log.warn("listener at {} stopped accepting; the server is closed", listener.address(), e);
                dispose();
            });
        }

        /**
         * Runs the hooks for one accepted endpoint. Whatever they do wrong (throw, return null, signal an error) ends
         * that endpoint, is logged, and leaves the server accepting.
         */
        private void serve(Endpoint ep) {
            serving.add(ep);
            ep.onClose().subscribe(null, null, () -> serving.remove(ep));
            Publisher<Void> done;
            try {
                server.onConnection.accept(ep);
                done = Objects.requireNonNull(server.handler.apply(ep), "the handler returned null");
            } catch (RuntimeException | Error e) {
                if (e instanceof VirtualMachineError fatal && !(e instanceof OutOfMemoryError)) {
                    throw fatal;
                }
                log.warn("handler of {} failed; the endpoint is closed", ep, e);
                ep.dispose();
                return;
            }
            Mono.from(done)
                    .doFinally(s -> ep.dispose())
                    .subscribe(null, e -> log.warn("handler of {} failed; the endpoint is closed", ep, e));
        }

        public String address() {
            return listener.address();
        }

        public Transport transport() {
            return transport;
        }

        /** Endpoints accepted and not yet closed. */
        public int connections() {
            return serving.size();
        }

        /** Completes when the server stopped accepting. */
        public Mono<Void> onDispose() {
            return listener.onDispose();
        }

        /**
         * Stops accepting and closes every endpoint it serves now ({@link Endpoint#dispose()}), and its transport if
         * it opened one. Does not wait.
         */
        @Override
        public void dispose() {
            Disposable a = accepting;
            if (a != null) { // null only when the listener failed while it was being subscribed to
                a.dispose();
            }
            listener.dispose();
            List.copyOf(serving).forEach(Endpoint::dispose);
            if (ownsTransport) {
                transport.disposeLater().subscribe(null, e -> log.warn("closing {} failed", transport.id(), e));
            }
        }

        /**
         * Stops accepting at once, lets every endpoint it serves finish the operations it has issued (each within
         * {@code timeout}, all at the same time, as {@link Endpoint#closeGracefully(Duration)}), then closes them and
         * the transport if the server opened it. What Spring's graceful shutdown phase calls.
         */
        public Mono<Void> disposeGracefully(Duration timeout) {
            return Mono.defer(() -> {
                Disposable a = accepting;
                if (a != null) {
                    a.dispose();
                }
                listener.dispose();
                List<Endpoint> open = List.copyOf(serving);
                Mono<Void> drained = Flux.fromIterable(open)
                        .flatMap(ep -> ep.closeGracefully(timeout).onErrorResume(e -> Mono.empty()),
                                Math.max(1, open.size()))
                        .then();
                return ownsTransport ? drained.then(transport.disposeGracefully(timeout)) : drained;
            });
        }

        /** {@link #dispose()} and waits up to {@code timeout} for the endpoints (and an own transport) to close. */
        public void disposeNow(Duration timeout) {
            List<Endpoint> open = List.copyOf(serving);
            dispose();
            Flux.fromIterable(open).flatMap(Endpoint::onClose, Math.max(1, open.size()))
                    .then(ownsTransport ? transport.onDispose() : Mono.empty())
                    .block(timeout);
        }

        @Override
        public boolean isDisposed() {
            return listener.isDisposed();
        }
    }
}
