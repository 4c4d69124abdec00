package dev.rivulet.core;

import dev.rivulet.core.error.InvalidRequestException;
import io.micrometer.core.instrument.MeterRegistry;
import org.reactivestreams.Publisher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * Accepts Rivulet endpoints, in Reactor Netty's style. Each accepted endpoint is given to the {@link #handle}
 * function; when the {@code Publisher<Void>} it returns terminates, the endpoint is closed.
 *
 * <pre>{@code
 * BoundServer server = RivuletServer.create()
 *         .bindAddress("local://orders")
 *         .handle(ep -> ep.receive().doOnNext(Buffer::release).then())
 *         .bindNow();
 * }</pre>
 */
public final class RivuletServer {

    private static final Logger log = LoggerFactory.getLogger(RivuletServer.class);

    private final String address;
    private final Transport transport;
    private final TransportConfig config;
    private final Function<? super Endpoint, ? extends Publisher<Void>> handler;
    private final Consumer<? super Endpoint> onConnection;

    private RivuletServer(String address, Transport transport, TransportConfig config,
                          Function<? super Endpoint, ? extends Publisher<Void>> handler,
                          Consumer<? super Endpoint> onConnection) {
        this.address = address;
        this.transport = transport;
        this.config = config;
        this.handler = handler;
        this.onConnection = onConnection;
    }

    public static RivuletServer create() {
        return new RivuletServer(null, null, TransportConfig.defaults(), ep -> Mono.never(), ep -> { });
    }

    public RivuletServer bindAddress(String address) {
        return new RivuletServer(address, transport, config, handler, onConnection);
    }

    /** Uses an existing transport; it stays open after the server is disposed. */
    public RivuletServer runOn(Transport transport) {
        return new RivuletServer(address, transport, config, handler, onConnection);
    }

    public RivuletServer config(UnaryOperator<TransportConfig> change) {
        return new RivuletServer(address, transport, change.apply(config), handler, onConnection);
    }

    public RivuletServer metrics(MeterRegistry registry) {
        return config(c -> c.meterRegistry(registry));
    }

    public RivuletServer handle(Function<? super Endpoint, ? extends Publisher<Void>> handler) {
        return new RivuletServer(address, transport, config, Objects.requireNonNull(handler), onConnection);
    }

    public RivuletServer doOnConnection(Consumer<? super Endpoint> hook) {
        return new RivuletServer(address, transport, config, handler, Objects.requireNonNull(hook));
    }

    /** Binds on subscription. */
    public Mono<BoundServer> bind() {
        return Mono.defer(() -> {
            if (address == null) {
                return Mono.error(new InvalidRequestException("bindAddress is not set"));
            }
            boolean own = transport == null;
            Transport t = own ? Transports.open(Transports.forAddress(address).map(p -> p.name())
                    .orElseThrow(() -> new InvalidRequestException("no provider for address " + address)), config)
                    : transport;
            return t.bind(address)
                    .map(listener -> {
                        Disposable accepting = listener.accepted().subscribe(ep -> {
                            onConnection.accept(ep);
                            Mono.from(handler.apply(ep))
                                    .doFinally(s -> ep.dispose())
                                    .subscribe(null, e -> log.warn("handler of {} failed", ep, e));
                        });
                        return new BoundServer(listener, t, own, accepting);
                    })
                    .doOnError(e -> {
                        if (own) {
                            t.dispose();
                        }
                    });
        });
    }

    public BoundServer bindNow(Duration timeout) {
        return bind().block(timeout);
    }

    public BoundServer bindNow() {
        return bindNow(Duration.ofSeconds(30));
    }

    /** A bound server: its address, its transport, and how to stop it. */
    public static final class BoundServer implements Disposable {
        private final Listener listener;
        private final Transport transport;
        private final boolean ownsTransport;
        private final Disposable accepting;

        BoundServer(Listener listener, Transport transport, boolean ownsTransport, Disposable accepting) {
            this.listener = listener;
            this.transport = transport;
            this.ownsTransport = ownsTransport;
            this.accepting = accepting;
        }

        public String address() {
            return listener.address();
        }

        public Transport transport() {
            return transport;
        }

        public Mono<Void> onDispose() {
            return listener.onDispose();
        }

        @Override
        public void dispose() {
            accepting.dispose();
            listener.dispose();
            if (ownsTransport) {
                transport.dispose();
            }
        }

        @Override
        public boolean isDisposed() {
            return listener.isDisposed();
        }
    }
}
