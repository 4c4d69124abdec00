package dev.rivulet.core;

import dev.rivulet.core.error.InvalidRequestException;
import io.micrometer.core.instrument.MeterRegistry;
import reactor.core.publisher.Mono;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Connects to a Rivulet server, in Reactor Netty's style: immutable, each setter returns a new client, and
 * {@link #connect()} is the lazy terminal.
 *
 * <pre>{@code
 * Endpoint ep = RivuletClient.create()
 *         .remoteAddress("local://orders")
 *         .metrics(registry)
 *         .connectNow();
 * }</pre>
 *
 * Without {@link #runOn(Transport)} the client opens a transport of its own for the address's scheme and closes it
 * when the endpoint closes.
 */
public final class RivuletClient {

    private final String address;
    private final Transport transport;
    private final TransportConfig config;
    private final Consumer<? super Endpoint> onConnected;
    private final Consumer<? super Endpoint> onDisconnected;

    private RivuletClient(String address, Transport transport, TransportConfig config,
                          Consumer<? super Endpoint> onConnected, Consumer<? super Endpoint> onDisconnected) {
        this.address = address;
        this.transport = transport;
        this.config = config;
        this.onConnected = onConnected;
        this.onDisconnected = onDisconnected;
    }

    public static RivuletClient create() {
        return new RivuletClient(null, null, TransportConfig.defaults(), e -> { }, e -> { });
    }

    /** Where to connect, e.g. {@code local://orders} or {@code fabric://10.0.0.2:7000?provider=tcp}. */
    public RivuletClient remoteAddress(String address) {
        return new RivuletClient(address, transport, config, onConnected, onDisconnected);
    }

    /** Uses an existing transport (shared polling threads and memory domain); it stays open after disconnect. */
    public RivuletClient runOn(Transport transport) {
        return new RivuletClient(address, transport, config, onConnected, onDisconnected);
    }

    /** Adjusts the configuration of the transport this client opens itself. */
    public RivuletClient config(UnaryOperator<TransportConfig> change) {
        return new RivuletClient(address, transport, change.apply(config), onConnected, onDisconnected);
    }

    /** Publishes {@code rivulet.*} meters of the transport this client opens to {@code registry}. */
    public RivuletClient metrics(MeterRegistry registry) {
        return config(c -> c.meterRegistry(registry));
    }

    public RivuletClient doOnConnected(Consumer<? super Endpoint> hook) {
        return new RivuletClient(address, transport, config, Objects.requireNonNull(hook), onDisconnected);
    }

    public RivuletClient doOnDisconnected(Consumer<? super Endpoint> hook) {
        return new RivuletClient(address, transport, config, onConnected, Objects.requireNonNull(hook));
    }

    /** Connects on subscription. */
    public Mono<Endpoint> connect() {
        return Mono.defer(() -> {
            if (address == null) {
                return Mono.error(new InvalidRequestException("remoteAddress is not set"));
            }
            boolean own = transport == null;
            Transport t;
            if (own) {
                String name = Transports.forAddress(address).map(p -> p.name()).orElseThrow(() ->
                        new InvalidRequestException("no provider for address " + address + "; known: "
                                + Transports.describe()));
                t = Transports.open(name, config);
            } else {
                t = transport;
            }
            return t.connect(address)
                    .doOnNext(ep -> {
                        onConnected.accept(ep);
                        ep.onClose().doFinally(s -> {
                            onDisconnected.accept(ep);
                            if (own) {
                                t.dispose();
                            }
                        }).subscribe();
                    })
                    .doOnError(e -> {
                        if (own) {
                            t.dispose();
                        }
                    });
        });
    }

    /** Blocking {@link #connect()} for main methods and tests. */
    public Endpoint connectNow(Duration timeout) {
        return connect().block(timeout);
    }

    public Endpoint connectNow() {
        return connectNow(Duration.ofSeconds(30));
    }
}
