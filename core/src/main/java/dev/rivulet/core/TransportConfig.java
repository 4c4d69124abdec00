package dev.rivulet.core;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.progress.IdleStrategy;
import dev.rivulet.core.security.SecuritySettings;
import io.micrometer.core.instrument.MeterRegistry;
import org.jspecify.annotations.Nullable;

import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Immutable transport settings. Start from {@link #defaults()}; every setter returns a new instance, and a value that
 * cannot work is refused at once with {@link InvalidRequestException}.
 *
 * <ul>
 *   <li>{@link #name()}: tells this transport's meters apart from other transports' on one registry (tag
 *       {@code name}; default: the provider name and a sequence number);</li>
 *   <li>{@link #progressThreads()}: polling threads per transport;</li>
 *   <li>{@link #idleStrategy()}: makes one idle strategy per polling thread;</li>
 *   <li>{@link #sendQueueDepth()}: operations an endpoint keeps posted at once; more wait in its pending FIFO;</li>
 *   <li>{@link #receiveQueueDepth()}: receive buffers (hence credits) an endpoint posts at most;</li>
 *   <li>{@link #sendPrefetch()}: items a streaming send requests from its upstream before the first completion;</li>
 *   <li>{@link #meterRegistry()}: where {@code rivulet.*} meters go ({@code null} for none);</li>
 *   <li>{@link #observer()}: completion hook ({@code null} for none);</li>
 *   <li>{@link #connectTimeout()}: how long a {@code connect} may take, connection set-up and handshake included;</li>
 *   <li>{@link #receiveLinger()}: how long messages wait for a new {@code receive()} subscriber after one cancelled
 *       before the endpoint discards them (and what arrives) rather than stall the sender;</li>
 *   <li>{@link #options()}: provider settings ({@link TransportOption}s, e.g. {@code fabric.eagerSize});</li>
 *   <li>{@link #security()}: who may connect and how set-up is bounded (also set by {@code security.*} options);</li>
 *   <li>{@link #liveness()}: how a silent or stuck peer is noticed (also set by {@code liveness.*} options).</li>
 * </ul>
 */
public final class TransportConfig {

    public static final int DEFAULT_QUEUE_DEPTH = 128;
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_RECEIVE_LINGER = Duration.ofSeconds(1);

    private static final TransportConfig DEFAULTS = new TransportConfig(null, 1, IdleStrategy::defaultStrategy,
            DEFAULT_QUEUE_DEPTH, DEFAULT_QUEUE_DEPTH, DEFAULT_QUEUE_DEPTH, null, null, Map.of(),
            SecuritySettings.defaults(), LivenessSettings.defaults(), DEFAULT_CONNECT_TIMEOUT,
            DEFAULT_RECEIVE_LINGER);

    private final @Nullable String name;
    private final int progressThreads;
    private final Supplier<IdleStrategy> idleStrategy;
    private final int sendQueueDepth;
    private final int receiveQueueDepth;
    private final int sendPrefetch;
    private final @Nullable MeterRegistry meterRegistry;
    private final @Nullable OperationObserver observer;
    private final Map<String, String> options;
    private final SecuritySettings security;
    private final LivenessSettings liveness;
    private final Duration connectTimeout;
    private final Duration receiveLinger;

    private TransportConfig(@Nullable String name, int progressThreads, Supplier<IdleStrategy> idleStrategy,
                            int sendQueueDepth, int receiveQueueDepth, int sendPrefetch,
                            @Nullable MeterRegistry meterRegistry, @Nullable OperationObserver observer,
                            Map<String, String> options, SecuritySettings security, LivenessSettings liveness,
                            Duration connectTimeout, Duration receiveLinger) {
        if (progressThreads < 1) {
            throw new InvalidRequestException("progressThreads must be >= 1, got " + progressThreads);
        }
        if (sendQueueDepth < 1 || receiveQueueDepth < 1 || sendPrefetch < 1) {
            throw new InvalidRequestException("queue depths and prefetch must be >= 1, got send " + sendQueueDepth
                    + ", receive " + receiveQueueDepth + ", prefetch " + sendPrefetch);
        }
        if (connectTimeout == null || connectTimeout.isZero() || connectTimeout.isNegative()) {
            throw new InvalidRequestException("connectTimeout must be positive, got " + connectTimeout);
        }
        if (receiveLinger == null || receiveLinger.isNegative()) {
            throw new InvalidRequestException("receiveLinger must be zero or positive, got " + receiveLinger);
        }
        if (name != null && name.isBlank()) {
            throw new InvalidRequestException("a transport name must not be blank");
        }
        this.name = name;
        this.progressThreads = progressThreads;
        this.idleStrategy = Objects.requireNonNull(idleStrategy, "idleStrategy");
        this.sendQueueDepth = sendQueueDepth;
        this.receiveQueueDepth = receiveQueueDepth;
        this.sendPrefetch = sendPrefetch;
        this.meterRegistry = meterRegistry;
        this.observer = observer;
        this.options = Map.copyOf(options);
        this.security = Objects.requireNonNull(security, "security");
        this.liveness = Objects.requireNonNull(liveness, "liveness");
        this.connectTimeout = connectTimeout;
        this.receiveLinger = receiveLinger;
    }

    public static TransportConfig defaults() {
        return DEFAULTS;
    }

    private TransportConfig with(@Nullable String name, int progressThreads, Supplier<IdleStrategy> idleStrategy,
                                 int sendQueueDepth, int receiveQueueDepth, int sendPrefetch,
                                 @Nullable MeterRegistry meterRegistry, @Nullable OperationObserver observer,
                                 Map<String, String> options,
                                 SecuritySettings security, LivenessSettings liveness, Duration connectTimeout,
                                 Duration receiveLinger) {
        return new TransportConfig(name, progressThreads, idleStrategy, sendQueueDepth, receiveQueueDepth, sendPrefetch,
                meterRegistry, observer, options, security, liveness, connectTimeout, receiveLinger);
    }

    // ---- accessors ----

    /** The name given with {@link #name(String)}, or {@code null} for the transport's own default. */
    public @Nullable String name() {
        return name;
    }

    public int progressThreads() {
        return progressThreads;
    }

    public Supplier<IdleStrategy> idleStrategy() {
        return idleStrategy;
    }

    public int sendQueueDepth() {
        return sendQueueDepth;
    }

    public int receiveQueueDepth() {
        return receiveQueueDepth;
    }

    public int sendPrefetch() {
        return sendPrefetch;
    }

    public @Nullable MeterRegistry meterRegistry() {
        return meterRegistry;
    }

    public @Nullable OperationObserver observer() {
        return observer;
    }

    /** Provider options as text, by key. */
    public Map<String, String> options() {
        return options;
    }

    public SecuritySettings security() {
        return security;
    }

    public LivenessSettings liveness() {
        return liveness;
    }

    public Duration connectTimeout() {
        return connectTimeout;
    }

    public Duration receiveLinger() {
        return receiveLinger;
    }

    // ---- setters ----

    /** The {@code name} tag of this transport's meters; unique per registry (a second one with the same is refused). */
    public TransportConfig name(@Nullable String n) {
        return with(n, progressThreads, idleStrategy, sendQueueDepth, receiveQueueDepth, sendPrefetch, meterRegistry,
                observer, options, security, liveness, connectTimeout, receiveLinger);
    }

    public TransportConfig progressThreads(int n) {
        return with(name, n, idleStrategy, sendQueueDepth, receiveQueueDepth, sendPrefetch, meterRegistry, observer,
                options, security, liveness, connectTimeout, receiveLinger);
    }

    public TransportConfig idleStrategy(Supplier<IdleStrategy> s) {
        return with(name, progressThreads, s, sendQueueDepth, receiveQueueDepth, sendPrefetch, meterRegistry, observer,
                options, security, liveness, connectTimeout, receiveLinger);
    }

    public TransportConfig sendQueueDepth(int n) {
        return with(name, progressThreads, idleStrategy, n, receiveQueueDepth, sendPrefetch, meterRegistry, observer,
                options, security, liveness, connectTimeout, receiveLinger);
    }

    public TransportConfig receiveQueueDepth(int n) {
        return with(name, progressThreads, idleStrategy, sendQueueDepth, n, sendPrefetch, meterRegistry, observer,
                options, security, liveness, connectTimeout, receiveLinger);
    }

    public TransportConfig sendPrefetch(int n) {
        return with(name, progressThreads, idleStrategy, sendQueueDepth, receiveQueueDepth, n, meterRegistry, observer,
                options, security, liveness, connectTimeout, receiveLinger);
    }

    public TransportConfig meterRegistry(@Nullable MeterRegistry r) {
        return with(name, progressThreads, idleStrategy, sendQueueDepth, receiveQueueDepth, sendPrefetch, r, observer,
                options, security, liveness, connectTimeout, receiveLinger);
    }

    public TransportConfig observer(@Nullable OperationObserver o) {
        return with(name, progressThreads, idleStrategy, sendQueueDepth, receiveQueueDepth, sendPrefetch,
                meterRegistry, o, options, security, liveness, connectTimeout, receiveLinger);
    }

    public TransportConfig connectTimeout(Duration d) {
        return with(name, progressThreads, idleStrategy, sendQueueDepth, receiveQueueDepth, sendPrefetch,
                meterRegistry, observer, options, security, liveness, d, receiveLinger);
    }

    /**
     * How long messages that arrived for a {@code receive()} subscriber that cancelled wait for the next one while the
     * endpoint stays open; after that the endpoint discards what waits and what arrives, granting credits as it
     * does, until a subscriber comes: a sender is never stalled by a receiver that stopped listening. Zero discards
     * at once.
     */
    public TransportConfig receiveLinger(Duration d) {
        return with(name, progressThreads, idleStrategy, sendQueueDepth, receiveQueueDepth, sendPrefetch,
                meterRegistry, observer, options, security, liveness, connectTimeout, d);
    }

    public TransportConfig security(SecuritySettings s) {
        return with(name, progressThreads, idleStrategy, sendQueueDepth, receiveQueueDepth, sendPrefetch,
                meterRegistry, observer, options, s, liveness, connectTimeout, receiveLinger);
    }

    public TransportConfig liveness(LivenessSettings l) {
        return with(name, progressThreads, idleStrategy, sendQueueDepth, receiveQueueDepth, sendPrefetch,
                meterRegistry, observer, options, security, l, connectTimeout, receiveLinger);
    }

    /** A typed provider option; the value is checked now. */
    public <T> TransportConfig option(TransportOption<T> option, T value) {
        return option(option.key(), option.format(value));
    }

    /**
     * A provider option as text (property files, Spring configuration). Keys under {@code security.} and
     * {@code liveness.} are parsed at once into {@link #security()} and {@link #liveness()}; other keys are checked
     * against the provider's {@link TransportOption}s when the transport opens, which refuses keys it does not know.
     */
    public TransportConfig option(String key, String value) {
        if (key == null || key.isBlank() || value == null) {
            throw new InvalidRequestException("an option needs a key and a value, got " + key + "=" + value);
        }
        Map<String, String> m = new LinkedHashMap<>(options);
        m.put(key, value);
        SecuritySettings sec = security;
        LivenessSettings live = liveness;
        if (key.startsWith("security.")) {
            sec = sec.withOptions(Map.of(key, value));
        } else if (key.startsWith("liveness.")) {
            live = live.withOptions(Map.of(key, value));
        }
        return with(name, progressThreads, idleStrategy, sendQueueDepth, receiveQueueDepth, sendPrefetch,
                meterRegistry, observer, m, sec, live, connectTimeout, receiveLinger);
    }

    /** Every entry of {@code values} as {@link #option(String, String)}. */
    public TransportConfig options(Map<String, String> values) {
        TransportConfig c = this;
        for (Map.Entry<String, String> e : new TreeMap<>(values).entrySet()) {
            c = c.option(e.getKey(), e.getValue());
        }
        return c;
    }

    /** The value of {@code option}: what was given, checked, or its default. */
    public <T> T get(TransportOption<T> option) {
        String text = options.get(option.key());
        return text == null ? option.defaultValue() : option.parse(text);
    }

    /** Whether {@code option} was given explicitly. */
    public boolean has(TransportOption<?> option) {
        return options.containsKey(option.key());
    }

    /**
     * Checks every provider option against {@code known} (security and liveness options are checked as they are
     * given): an unknown key or a value the option cannot read is refused, naming the known keys.
     */
    public TransportConfig checkOptions(String transport, Collection<? extends TransportOption<?>> known) {
        Map<String, TransportOption<?>> byKey = known.stream()
                .collect(Collectors.toMap(TransportOption::key, o -> o, (a, b) -> a, TreeMap::new));
        for (Map.Entry<String, String> e : options.entrySet()) {
            String k = e.getKey();
            if (k.startsWith("security.") || k.startsWith("liveness.")) {
                continue;
            }
            TransportOption<?> o = byKey.get(k);
            if (o == null) {
                throw new InvalidRequestException("unknown option '" + k + "' for transport " + transport
                        + "; known: " + String.join(", ", byKey.keySet())
                        + (byKey.isEmpty() ? "" : ", ") + "security.*, liveness.*");
            }
            o.parse(e.getValue());
        }
        return this;
    }

    @Override
    public String toString() {
        return "TransportConfig[name=" + name + ", progressThreads=" + progressThreads + ", sendQueueDepth="
                + sendQueueDepth + ", receiveQueueDepth=" + receiveQueueDepth + ", sendPrefetch=" + sendPrefetch
                + ", connectTimeout=" + connectTimeout + ", receiveLinger=" + receiveLinger + ", options="
                + options.keySet() + "]";
    }
}
