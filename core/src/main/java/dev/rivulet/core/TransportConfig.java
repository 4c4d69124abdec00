package dev.rivulet.core;

import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.progress.IdleStrategy;
import dev.rivulet.core.security.SecuritySettings;
import io.micrometer.core.instrument.MeterRegistry;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Immutable transport settings. Start from {@link #defaults()}; every setter returns a new instance.
 *
 * @param progressThreads    polling threads per transport
 * @param idleStrategy       makes one idle strategy per polling thread
 * @param sendQueueDepth     operations an endpoint keeps posted at once; more wait in its pending FIFO
 * @param receiveQueueDepth  receive buffers (hence credits) an endpoint posts at most
 * @param sendPrefetch       items a streaming send requests from its upstream before the first completion
 * @param meterRegistry      where {@code rivulet.*} meters go; {@code null} for none
 * @param observer           completion hook, {@code null} for none
 * @param options            provider-specific settings (e.g. {@code provider=tcp})
 * @param security           who may connect and how set-up is bounded (also set by {@code security.*} options)
 * @param liveness           how a silent or stuck peer is noticed (also set by {@code liveness.*} options)
 */
public record TransportConfig(int progressThreads, Supplier<IdleStrategy> idleStrategy, int sendQueueDepth,
                              int receiveQueueDepth, int sendPrefetch, MeterRegistry meterRegistry,
                              OperationObserver observer, Map<String, String> options, SecuritySettings security,
                              LivenessSettings liveness) {

    public static final int DEFAULT_QUEUE_DEPTH = 128;

    public TransportConfig {
        if (progressThreads < 1) {
            throw new IllegalArgumentException("progressThreads must be >= 1");
        }
        if (sendQueueDepth < 1 || receiveQueueDepth < 1 || sendPrefetch < 1) {
            throw new IllegalArgumentException("queue depths and prefetch must be >= 1");
        }
        Objects.requireNonNull(idleStrategy, "idleStrategy");
        Objects.requireNonNull(security, "security");
        Objects.requireNonNull(liveness, "liveness");
        options = Map.copyOf(options);
    }

    public static TransportConfig defaults() {
        return new TransportConfig(1, IdleStrategy::defaultStrategy, DEFAULT_QUEUE_DEPTH, DEFAULT_QUEUE_DEPTH,
                DEFAULT_QUEUE_DEPTH, null, null, Map.of(), SecuritySettings.defaults(), LivenessSettings.defaults());
    }

    public TransportConfig progressThreads(int n) {
        return new TransportConfig(n, idleStrategy, sendQueueDepth, receiveQueueDepth, sendPrefetch, meterRegistry,
                observer, options, security, liveness);
    }

    public TransportConfig idleStrategy(Supplier<IdleStrategy> s) {
        return new TransportConfig(progressThreads, s, sendQueueDepth, receiveQueueDepth, sendPrefetch, meterRegistry,
                observer, options, security, liveness);
    }

    public TransportConfig sendQueueDepth(int n) {
        return new TransportConfig(progressThreads, idleStrategy, n, receiveQueueDepth, sendPrefetch, meterRegistry,
                observer, options, security, liveness);
    }

    public TransportConfig receiveQueueDepth(int n) {
        return new TransportConfig(progressThreads, idleStrategy, sendQueueDepth, n, sendPrefetch, meterRegistry,
                observer, options, security, liveness);
    }

    public TransportConfig sendPrefetch(int n) {
        return new TransportConfig(progressThreads, idleStrategy, sendQueueDepth, receiveQueueDepth, n, meterRegistry,
                observer, options, security, liveness);
    }

    public TransportConfig meterRegistry(MeterRegistry r) {
        return new TransportConfig(progressThreads, idleStrategy, sendQueueDepth, receiveQueueDepth, sendPrefetch, r,
                observer, options, security, liveness);
    }

    public TransportConfig observer(OperationObserver o) {
        return new TransportConfig(progressThreads, idleStrategy, sendQueueDepth, receiveQueueDepth, sendPrefetch,
                meterRegistry, o, options, security, liveness);
    }

    /**
     * A provider-specific option. Keys under {@code security.} and {@code liveness.} are parsed at once into
     * {@link #security()} and {@link #liveness()} (an unknown key or a malformed value there is refused).
     */
    public TransportConfig option(String key, String value) {
        Map<String, String> m = new HashMap<>(options);
        m.put(key, value);
        SecuritySettings sec = security;
        LivenessSettings live = liveness;
        if (key.startsWith("security.")) {
            sec = sec.withOptions(Map.of(key, value));
        } else if (key.startsWith("liveness.")) {
            live = live.withOptions(Map.of(key, value));
        }
        return new TransportConfig(progressThreads, idleStrategy, sendQueueDepth, receiveQueueDepth, sendPrefetch,
                meterRegistry, observer, m, sec, live);
    }

    public TransportConfig security(SecuritySettings s) {
        return new TransportConfig(progressThreads, idleStrategy, sendQueueDepth, receiveQueueDepth, sendPrefetch,
                meterRegistry, observer, options, s, liveness);
    }

    public TransportConfig liveness(LivenessSettings l) {
        return new TransportConfig(progressThreads, idleStrategy, sendQueueDepth, receiveQueueDepth, sendPrefetch,
                meterRegistry, observer, options, security, l);
    }

    public String optionOr(String key, String fallback) {
        return options.getOrDefault(key, fallback);
    }

    public int intOption(String key, int fallback) {
        String v = options.get(key);
        return v == null ? fallback : Integer.parseInt(v.trim());
    }
}
