package dev.rivulet.core;

import dev.rivulet.core.error.NotConnectedException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.util.retry.Retry;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * One connection the library keeps up: made by {@link RivuletClient#keepConnected}, connected at once, and connected
 * again with exponential backoff (between the two durations given, with jitter) whenever it is lost or cannot be
 * made, until {@link #dispose()}. What a service that talks to one peer over its whole life wants instead of writing
 * the reconnect loop itself.
 *
 * <p>Each connection is a new {@link Endpoint}: what was pending on the lost one failed with it (its close reason
 * says why), nothing is resent, and whatever was set up on it (an interaction session, grants) is set up again on
 * the next one, which {@link #endpoints()} announces. {@link #endpoint()} answers at once with the live endpoint or
 * with a retryable {@link NotConnectedException} naming the last failure, so a request made while the peer is away
 * fails fast instead of queueing.
 *
 * <pre>{@code
 * LiveConnection storage = RivuletClient.create()
 *         .remoteAddress("uring://storage:7000")
 *         .keepConnected(Duration.ofMillis(100), Duration.ofSeconds(5));
 * storage.endpoints().subscribe(ep -> requester.set(Interactions.client(ep)));   // a session per connection
 * }</pre>
 */
public final class LiveConnection implements Disposable {

    private static final Logger log = LoggerFactory.getLogger(LiveConnection.class);

    private final RivuletClient client;
    private final Supplier<String> address;
    private final Retry backoff;
    private final AtomicReference<@Nullable Endpoint> current = new AtomicReference<>();
    /** Each endpoint as it connects; late subscribers get the latest (and only a live one, see endpoints()). */
    private final Sinks.Many<Endpoint> connected = Sinks.many().replay().latest();
    private volatile String lastFailure = "not connected yet";
    private volatile boolean disposed;
    private volatile @Nullable Disposable connecting;

    LiveConnection(RivuletClient client, Supplier<String> address, Duration minBackoff, Duration maxBackoff) {
        this.client = client;
        this.address = address;
        this.backoff = Retry.backoff(Long.MAX_VALUE, minBackoff).maxBackoff(maxBackoff).filter(e -> !disposed);
        connect();
    }

    private void connect() {
        if (disposed) {
            return;
        }
        Disposable d = client.connect()
                .doOnError(e -> lastFailure = String.valueOf(e.getMessage()))
                .retryWhen(backoff)
                .subscribe(this::connected, e -> {
                    if (!disposed) {
                        log.warn("stopped connecting to {}", remoteAddress(), e);
                    }
                });
        connecting = d;
        if (disposed) {
            d.dispose(); // disposed while this attempt started: dispose() may have missed it
        }
    }

    private void connected(Endpoint ep) {
        if (disposed) {
            ep.dispose();
            return;
        }
        current.set(ep);
        lastFailure = "connected";
        synchronized (connected) { // one emitter at a time: a quick loss could otherwise race the previous emission
            connected.tryEmitNext(ep);
        }
        ep.closeReason().subscribe(reason -> {
            current.compareAndSet(ep, null);
            lastFailure = "connection " + reason.kind().name().toLowerCase(Locale.ROOT)
                    + (reason.cause() != null ? ": " + reason.cause().getMessage() : "");
            if (!disposed) {
                log.warn("lost the connection to {} ({}); reconnecting", remoteAddress(), lastFailure);
                connect();
            }
        });
    }

    /** The live endpoint, or a retryable {@link NotConnectedException} at once while there is none. */
    public Mono<Endpoint> endpoint() {
        return Mono.defer(() -> {
            Endpoint ep = current.get();
            return ep != null ? Mono.just(ep) : Mono.error(new NotConnectedException("not connected to " + remoteAddress()
                    + " (" + lastFailure + ")" + (disposed ? "" : "; reconnecting")));
        });
    }

    /**
     * Each endpoint as it connects, starting with the live one if there is one; completes when this connection is
     * disposed. Where each connection needs setting up (an interaction session), do it here.
     */
    public Flux<Endpoint> endpoints() {
        return connected.asFlux().filter(ep -> !ep.isDisposed()); // the latest one replayed only while it lives
    }

    /** Whether an endpoint is connected right now. */
    public boolean isConnected() {
        return current.get() != null;
    }

    /** Why the last attempt failed or the last connection ended; {@code "connected"} while one is up. */
    public String lastFailure() {
        return lastFailure;
    }

    /** The address this connection is kept to (asked again on each attempt when given as a supplier). */
    public String remoteAddress() {
        return String.valueOf(address.get());
    }

    /** Stops reconnecting and closes the live endpoint now ({@link Endpoint#dispose()}). */
    @Override
    public void dispose() {
        Endpoint ep = stop();
        if (ep != null) {
            ep.dispose();
        }
    }

    /** Stops reconnecting and closes the live endpoint once its issued operations finished (within {@code timeout}). */
    public Mono<Void> disposeGracefully(Duration timeout) {
        return Mono.defer(() -> {
            Endpoint ep = stop();
            return ep != null ? ep.closeGracefully(timeout) : Mono.empty();
        });
    }

    private @Nullable Endpoint stop() {
        disposed = true;
        Disposable d = connecting;
        if (d != null) {
            d.dispose();
        }
        synchronized (connected) {
            connected.tryEmitComplete();
        }
        return current.getAndSet(null);
    }

    @Override
    public boolean isDisposed() {
        return disposed;
    }

    @Override
    public String toString() {
        return "LiveConnection[" + remoteAddress() + ", " + lastFailure + "]";
    }
}
