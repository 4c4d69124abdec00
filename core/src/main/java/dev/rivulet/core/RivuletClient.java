package dev.rivulet.core;

import dev.rivulet.core.error.ConnectTimeoutException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.resume.ResumableSession;
import dev.rivulet.core.resume.ResumeConnector;
import dev.rivulet.core.resume.ResumeSpec;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Connects to a Rivulet server, in Reactor Netty's style: immutable, each setter returns a new client, and
 * {@link #connect()} is the lazy terminal.
 *
 * <pre>{@code
 * Endpoint ep = RivuletClient.create()
 *         .remoteAddress("fabric://10.0.0.2:7000?provider=tcp")
 *         .connectNow();
 * }</pre>
 *
 * Where the endpoint lives:
 * <ul>
 *   <li>by default on the transport shared by every client and server of the JVM for that kind of address
 *       ({@link Transports#shared(String)}): polling threads and registered memory are shared, as Reactor Netty
 *       shares its event loops;</li>
 *   <li>with {@link #runOn(Transport)} on a transport of the caller's, which stays open after the endpoint closes;</li>
 *   <li>with {@link #runOn(TransportResources)} on the transport a group of clients and servers shares, configured
 *       once for the group;</li>
 *   <li>with {@link #config} or {@link #metrics} on a transport of its own with that configuration, opened for this
 *       endpoint and closed with it.</li>
 * </ul>
 * {@code runOn} and a configuration of the client's own exclude each other: configure the transport or resources you
 * run on. The JVM's shared transports are configured with {@link Transports#configureShared}.
 */
public final class RivuletClient {

    /** Where to connect, asked again on each connect (a fixed address, or one that may move). */
    private final @Nullable Supplier<String> address;
    private final @Nullable Transport transport;
    private final @Nullable TransportResources resources;
    private final @Nullable TransportConfig config;
    private final @Nullable Duration connectTimeout;
    private final Consumer<? super Endpoint> onConnected;
    private final Consumer<? super Endpoint> onDisconnected;

    private RivuletClient(@Nullable Supplier<String> address, @Nullable Transport transport,
                          @Nullable TransportResources resources, @Nullable TransportConfig config,
                          @Nullable Duration connectTimeout, Consumer<? super Endpoint> onConnected,
                          Consumer<? super Endpoint> onDisconnected) {
        this.address = address;
        this.transport = transport;
        this.resources = resources;
        this.config = config;
        this.connectTimeout = connectTimeout;
        this.onConnected = onConnected;
        this.onDisconnected = onDisconnected;
    }

    public static RivuletClient create() {
        return new RivuletClient(null, null, null, null, null, e -> { }, e -> { });
    }

    /** Where to connect, e.g. {@code local://orders} or {@code fabric://10.0.0.2:7000?provider=tcp}. */
    public RivuletClient remoteAddress(String address) {
        Objects.requireNonNull(address, "address");
        return remoteAddress(() -> address);
    }

    /**
     * Where to connect, asked on every connect (as Reactor Netty's {@code remoteAddress(Supplier)}): for a peer whose
     * address is known only later or may change, e.g. for {@link #keepConnected} or a {@link #pool}.
     */
    public RivuletClient remoteAddress(Supplier<String> address) {
        return new RivuletClient(Objects.requireNonNull(address, "address"), transport, resources, config,
                connectTimeout, onConnected, onDisconnected);
    }

    /** Uses an existing transport (its polling threads and memory domain); it stays open after disconnect. */
    public RivuletClient runOn(Transport transport) {
        requireNoOwnConfig("run on a given transport");
        return new RivuletClient(address, Objects.requireNonNull(transport, "transport"), null, null, connectTimeout,
                onConnected, onDisconnected);
    }

    /**
     * Runs on the transport {@code resources} hold for the remote address's kind (opened on first use, shared with
     * every client and server running on them, closed when they are disposed, not when the endpoint closes).
     */
    public RivuletClient runOn(TransportResources resources) {
        requireNoOwnConfig("run on given resources");
        return new RivuletClient(address, null, Objects.requireNonNull(resources, "resources"), null, connectTimeout,
                onConnected, onDisconnected);
    }

    private void requireNoOwnConfig(String what) {
        if (config != null) {
            throw new InvalidRequestException("this client has a configuration of its own (config or metrics); it "
                    + "cannot also " + what + ": configure that transport or those resources instead");
        }
    }

    /**
     * Gives the client a transport of its own with this configuration (starting from the defaults, or from what
     * earlier calls set), opened on connect and closed with the endpoint.
     */
    public RivuletClient config(UnaryOperator<TransportConfig> change) {
        if (transport != null || resources != null) {
            throw new InvalidRequestException("this client runs on a given transport or on given resources, whose "
                    + "configuration is fixed: configure that transport or those resources instead");
        }
        TransportConfig c = change.apply(config != null ? config : TransportConfig.defaults());
        return new RivuletClient(address, null, null, Objects.requireNonNull(c, "config"), connectTimeout, onConnected,
                onDisconnected);
    }

    /** Publishes {@code rivulet.*} meters of the transport this client opens for itself to {@code registry}. */
    public RivuletClient metrics(MeterRegistry registry) {
        return config(c -> c.meterRegistry(registry));
    }

    /**
     * How long {@link #connect()} may take in all, opening a transport included; it then fails with
     * {@link ConnectTimeoutException}. Without it, each transport bounds its own connection set-up
     * ({@link TransportConfig#connectTimeout()}, 10 s by default).
     */
    public RivuletClient connectTimeout(Duration timeout) {
        if (timeout == null || timeout.isZero() || timeout.isNegative()) {
            throw new InvalidRequestException("connectTimeout must be positive, got " + timeout);
        }
        return new RivuletClient(address, transport, resources, config, timeout, onConnected, onDisconnected);
    }

    public RivuletClient doOnConnected(Consumer<? super Endpoint> hook) {
        return new RivuletClient(address, transport, resources, config, connectTimeout, Objects.requireNonNull(hook),
                onDisconnected);
    }

    public RivuletClient doOnDisconnected(Consumer<? super Endpoint> hook) {
        return new RivuletClient(address, transport, resources, config, connectTimeout, onConnected,
                Objects.requireNonNull(hook));
    }

    /**
     * Connects on subscription. Opening a transport and setting a connection up may block, so both run off the
     * subscribing thread. A connection that completes after the subscriber cancelled (or timed out) is closed.
     */
    public Mono<Endpoint> connect() {
        Mono<Endpoint> connecting = Mono.defer(() -> {
            String a = address == null ? null : address.get();
            if (a == null) {
                return Mono.error(new InvalidRequestException(address == null ? "remoteAddress is not set"
                        : "the remote address supplier gave no address"));
            }
            if (transport != null) {
                return transport.connect(a).doOnNext(this::connected);
            }
            if (config == null) {
                TransportResources r = resources;
                return Mono.fromCallable(() -> r != null ? r.forAddress(a) : Transports.shared(a))
                        .subscribeOn(Schedulers.boundedElastic())
                        .flatMap(t -> t.connect(a))
                        .doOnNext(this::connected);
            }
            return Mono.fromCallable(() -> openOwnTransport(a))
                    .subscribeOn(Schedulers.boundedElastic())
                    .flatMap(t -> t.connect(a)
                            .doOnNext(ep -> {
                                connected(ep);
                                // The transport is this endpoint's alone: it goes with it, without blocking the
                                // polling thread that reports the close.
                                ep.onClose().subscribe(null, null, () -> t.disposeLater().subscribe());
                            })
                            .doOnError(e -> t.disposeLater().subscribe())
                            .doOnCancel(() -> t.disposeLater().subscribe()));
        });
        connecting = closedIfAbandoned(connecting);
        if (connectTimeout != null) {
            Duration d = connectTimeout;
            connecting = connecting.timeout(d, Mono.error(() -> new ConnectTimeoutException(
                    "connecting to " + describeAddress() + " took longer than " + d)));
        }
        return connecting.doOnDiscard(Endpoint.class, Endpoint::dispose);
    }

    /**
     * Lets a connection set-up that its subscriber abandoned (cancelled, or timed out) run to its end and closes what
     * it made, instead of cancelling it half-way: a set-up cancelled on its blocking thread could leave a connection
     * that both sides had already established open, unseen by anyone.
     */
    private static Mono<Endpoint> closedIfAbandoned(Mono<Endpoint> connecting) {
        return Mono.create(sink -> {
            AtomicBoolean abandoned = new AtomicBoolean();
            sink.onCancel(() -> abandoned.set(true));
            connecting.subscribe(ep -> {
                if (abandoned.get()) {
                    ep.dispose();
                } else {
                    sink.success(ep); // abandoned meanwhile: Mono.create discards it, and the discard hook closes it
                }
            }, sink::error, sink::success);
        });
    }

    private String describeAddress() {
        String a = address == null ? null : address.get();
        return a == null ? "(no address)" : a;
    }

    private Transport openOwnTransport(String a) {
        return Transports.open(TransportResources.provider(a).name(), TransportResources.withImpliedOptions(config, a));
    }

    private void connected(Endpoint ep) {
        try {
            onConnected.accept(ep);
        } catch (RuntimeException e) {
            ep.dispose(); // the connect fails with the hook's error: nobody else will hold this endpoint
            throw e;
        }
        ep.onClose().subscribe(null, null, () -> onDisconnected.accept(ep));
    }

    /**
     * Keeps one connection to the remote address up from now on: connects at once, and again with exponential
     * backoff from {@code minBackoff} up to {@code maxBackoff} whenever the connection is lost or cannot be made,
     * until the returned {@link LiveConnection} is disposed.
     */
    public LiveConnection keepConnected(Duration minBackoff, Duration maxBackoff) {
        if (address == null) {
            throw new InvalidRequestException("remoteAddress is not set");
        }
        if (minBackoff == null || maxBackoff == null || minBackoff.isNegative() || minBackoff.isZero()
                || maxBackoff.compareTo(minBackoff) < 0) {
            throw new InvalidRequestException("backoff must be positive, at most " + maxBackoff + " and at least "
                    + minBackoff);
        }
        return new LiveConnection(this, address, minBackoff, maxBackoff);
    }

    /**
     * A pool of connections to the remote address, each made by this client's {@link #connect()} when the pool needs
     * one (so on the resources, transport or configuration this client runs on; an address supplier is asked then,
     * and once now for the pool's {@code remote} meter tag).
     */
    public ConnectionPool pool(ConnectionPool.Settings settings) {
        if (address == null) {
            throw new InvalidRequestException("remoteAddress is not set");
        }
        return new ConnectionPool(connect(), describeAddress(), Objects.requireNonNull(settings, "settings"));
    }

    /**
     * Connects and sets up a {@link ResumableSession}: a conversation of messages that outlives its connection. When
     * the connection is lost the session connects again with this client's {@link #connect()} (backoff as
     * {@code spec} says) and resumes: each message is delivered exactly once and in order across the break, as long as
     * a connection comes back within {@link ResumeSpec#sessionTimeout()}; otherwise everything pending ends with
     * {@link dev.rivulet.core.error.SessionExpiredException}. The server must serve with
     * {@link RivuletServer#handleResumable}.
     */
    public Mono<ResumableSession> connectResumable(ResumeSpec spec) {
        return ResumeConnector.connect(connect(), Objects.requireNonNull(spec, "spec"));
    }

    /** Blocking {@link #connect()} for main methods and tests. */
    public Endpoint connectNow(Duration timeout) {
        return connect().block(timeout);
    }

    public Endpoint connectNow() {
        return connectNow(Duration.ofSeconds(30));
    }
}
