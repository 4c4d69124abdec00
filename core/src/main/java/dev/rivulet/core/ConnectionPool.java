package dev.rivulet.core;

import dev.rivulet.core.error.InsufficientResourcesException;
import dev.rivulet.core.error.InvalidRequestException;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.pool.InstrumentedPool;
import reactor.pool.PoolAcquirePendingLimitException;
import reactor.pool.PoolAcquireTimeoutException;
import reactor.pool.PoolBuilder;
import reactor.pool.PooledRef;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * Connections to one remote address, pooled: what Reactor Netty's {@code ConnectionProvider} is to its clients, built
 * on the same pool (reactor-pool). {@link #withEndpoint} lends an endpoint for the duration of a piece of work; an
 * endpoint goes back to the pool when that work ends and is lent again to the next caller, so connection set-up is
 * paid once per connection rather than once per request. Made by {@link RivuletClient#pool(Settings)}.
 *
 * <ul>
 *   <li>At most {@link Settings#maxConnections()} connections; callers beyond that wait, at most
 *       {@link Settings#maxPendingAcquires()} of them and each at most {@link Settings#acquireTimeout()}: one more
 *       fails at once, and one that waited too long then, with a retryable {@link InsufficientResourcesException}.</li>
 *   <li>An idle connection is closed after {@link Settings#maxIdleTime()} (checked in the background and whenever
 *       it would be lent); a connection that closed while it was idle or in use is never lent again.</li>
 *   <li>{@link #dispose()} closes every connection; lent ones close as they come back.</li>
 * </ul>
 *
 * <p>An endpoint is one ordered message stream, so a pooled one is lent to one user at a time: it suits exchanges a
 * user starts and finishes (a request over an interaction session set up per use, a batch of puts). For many
 * concurrent requests over one connection, keep one connection ({@link RivuletClient#keepConnected}) with an
 * interaction session instead. Meters, when {@link Settings#meterRegistry()} is set: {@code rivulet.pool.connections}
 * (tag {@code state}: {@code acquired}, {@code idle}) and {@code rivulet.pool.pending}, tagged with the pool's
 * {@code name} and {@code remote} address.
 */
public final class ConnectionPool implements Disposable {

    /**
     * How a pool behaves.
     *
     * @param name               the {@code name} tag of its meters
     * @param maxConnections     connections open at once, at most
     * @param maxPendingAcquires callers waiting for a connection at once, at most (0: none wait)
     * @param acquireTimeout     how long one caller waits for a connection, at most
     * @param maxIdleTime        how long a connection may stay unused before it is closed
     * @param meterRegistry      where its meters go; null for none
     */
    public record Settings(String name, int maxConnections, int maxPendingAcquires, Duration acquireTimeout,
                           Duration maxIdleTime, @Nullable MeterRegistry meterRegistry) {

        public Settings {
            if (name == null || name.isBlank() || maxConnections < 1 || maxPendingAcquires < 0
                    || acquireTimeout == null || !acquireTimeout.isPositive() || maxIdleTime == null
                    || !maxIdleTime.isPositive()) {
                throw new InvalidRequestException("pool settings need a name, at least one connection, no negative "
                        + "pending count and positive durations, got " + name + ", " + maxConnections + ", "
                        + maxPendingAcquires + ", " + acquireTimeout + ", " + maxIdleTime);
            }
        }

        /** {@code maxConnections} connections, 256 waiting callers, 10 s to wait, closed after 60 s idle, no meters. */
        public static Settings of(String name, int maxConnections) {
            return new Settings(name, maxConnections, 256, Duration.ofSeconds(10), Duration.ofSeconds(60), null);
        }

        public Settings maxPendingAcquires(int n) {
            return new Settings(name, maxConnections, n, acquireTimeout, maxIdleTime, meterRegistry);
        }

        public Settings acquireTimeout(Duration d) {
            return new Settings(name, maxConnections, maxPendingAcquires, d, maxIdleTime, meterRegistry);
        }

        public Settings maxIdleTime(Duration d) {
            return new Settings(name, maxConnections, maxPendingAcquires, acquireTimeout, d, meterRegistry);
        }

        public Settings meterRegistry(@Nullable MeterRegistry r) {
            return new Settings(name, maxConnections, maxPendingAcquires, acquireTimeout, maxIdleTime, r);
        }
    }

    /** How long closing an evicted or returned-after-dispose connection may let its issued operations finish. */
    private static final Duration CLOSE_GRACE = Duration.ofSeconds(5);

    private final String address;
    private final Settings settings;
    private final InstrumentedPool<Endpoint> pool;
    private final List<Meter> meters;

    ConnectionPool(Mono<Endpoint> connect, String address, Settings settings) {
        this.address = address;
        this.settings = settings;
        long maxIdleMillis = settings.maxIdleTime().toMillis();
        this.pool = PoolBuilder.from(connect)
                .sizeBetween(0, settings.maxConnections())
                .maxPendingAcquire(settings.maxPendingAcquires())
                .evictionPredicate((ep, meta) -> ep.isDisposed() || meta.idleTime() >= maxIdleMillis)
                .evictInBackground(backgroundEvictionPeriod(settings.maxIdleTime()))
                .destroyHandler(ep -> ep.closeGracefully(CLOSE_GRACE).onErrorComplete())
                .buildPool();
        this.meters = register(settings.meterRegistry());
    }

    /** Eviction runs a few times per idle time, so an idle connection closes within about a quarter more of it. */
    private static Duration backgroundEvictionPeriod(Duration maxIdle) {
        Duration quarter = maxIdle.dividedBy(4);
        return quarter.compareTo(Duration.ofMillis(10)) < 0 ? Duration.ofMillis(10) : quarter;
    }

    private List<Meter> register(@Nullable MeterRegistry registry) {
        if (registry == null) {
            return List.of();
        }
        Tags tags = Tags.of("name", settings.name(), "remote", address);
        return List.of(
                gauge(registry, "rivulet.pool.connections", tags.and("state", "acquired"),
                        p -> p.metrics().acquiredSize(), "connections lent out"),
                gauge(registry, "rivulet.pool.connections", tags.and("state", "idle"),
                        p -> p.metrics().idleSize(), "connections open and waiting to be lent"),
                gauge(registry, "rivulet.pool.pending", tags, p -> p.metrics().pendingAcquireSize(),
                        "callers waiting for a connection"));
    }

    private Meter gauge(MeterRegistry registry, String name, Tags tags, ToDoubleFunction<InstrumentedPool<Endpoint>> f,
                        String description) {
        return Gauge.builder(name, pool, f).tags(tags).description(description).register(registry);
    }

    /**
     * Lends an endpoint to {@code use} and takes it back when the publisher {@code use} returns terminates or is
     * cancelled; an endpoint that closed meanwhile is dropped instead. Fails with a retryable
     * {@link InsufficientResourcesException} when the pool is at its limits, or with the connect's error.
     */
    public <T> Flux<T> withEndpoint(Function<? super Endpoint, ? extends Publisher<T>> use) {
        Objects.requireNonNull(use, "use");
        return Flux.usingWhen(acquire(), lease -> use.apply(lease.endpoint()), Lease::release,
                (lease, error) -> lease.release(), Lease::release);
    }

    /**
     * An endpoint of the pool for the caller to give back ({@link Lease#release()}), waiting for one at most
     * {@link Settings#acquireTimeout()}. Prefer {@link #withEndpoint}, which cannot forget to give it back.
     */
    public Mono<Lease> acquire() {
        return pool.acquire(settings.acquireTimeout()).map(Lease::new).onErrorMap(this::typed);
    }

    private Throwable typed(Throwable e) {
        if (e instanceof PoolAcquirePendingLimitException) {
            return new InsufficientResourcesException("connection pool " + settings.name() + " to " + address
                    + " has " + settings.maxConnections() + " connections lent and " + settings.maxPendingAcquires()
                    + " callers waiting already");
        }
        if (e instanceof PoolAcquireTimeoutException) {
            return new InsufficientResourcesException("no connection of pool " + settings.name() + " to " + address
                    + " became free within " + settings.acquireTimeout());
        }
        return e;
    }

    /** An endpoint lent by {@link #acquire()}: give it back once, with {@link #release()}. */
    public static final class Lease {

        private final PooledRef<Endpoint> ref;

        private Lease(PooledRef<Endpoint> ref) {
            this.ref = ref;
        }

        public Endpoint endpoint() {
            return ref.poolable();
        }

        /** Gives the endpoint back for the next caller (or closes it, if it closed meanwhile or the pool is gone). */
        public Mono<Void> release() {
            return ref.release();
        }

        /** Closes the endpoint instead of giving it back (it is in a state no other caller should inherit). */
        public Mono<Void> invalidate() {
            return ref.invalidate();
        }
    }

    /** The address every connection of this pool goes to. */
    public String remoteAddress() {
        return address;
    }

    public Settings settings() {
        return settings;
    }

    /** Connections lent out now. */
    public int acquired() {
        return pool.metrics().acquiredSize();
    }

    /** Connections open and waiting to be lent now. */
    public int idle() {
        return pool.metrics().idleSize();
    }

    /** Callers waiting for a connection now. */
    public int pending() {
        return pool.metrics().pendingAcquireSize();
    }

    /** Closes every idle connection now and the lent ones as they come back; later acquires fail. */
    @Override
    public void dispose() {
        pool.dispose();
        removeMeters();
    }

    /** {@link #dispose()} without blocking: completes once the idle connections were closed. */
    public Mono<Void> disposeLater() {
        return pool.disposeLater().doFinally(s -> removeMeters());
    }

    private void removeMeters() {
        MeterRegistry r = settings.meterRegistry();
        if (r != null) {
            meters.forEach(r::remove);
        }
    }

    @Override
    public boolean isDisposed() {
        return pool.isDisposed();
    }

    @Override
    public String toString() {
        return "ConnectionPool[" + settings.name() + " to " + address + ", " + acquired() + " lent, " + idle()
                + " idle]";
    }
}
