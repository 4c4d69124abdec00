package dev.rivulet.core.interaction;

import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Publisher;

import java.util.List;
import java.util.Objects;

/**
 * How a session behaves beyond its defaults: leases it sends as a responder, Reactor {@code Context} entries that
 * travel with its requests, and Micrometer observations of requests on both sides. Immutable.
 */
public final class InteractionOptions {

    /** The default of {@link #maxPayloadSize}. */
    public static final long DEFAULT_MAX_PAYLOAD = 256L << 20;

    private static final InteractionOptions DEFAULTS = new InteractionOptions(null, List.of(), null,
            DEFAULT_MAX_PAYLOAD);

    private final @Nullable Publisher<Lease> leases;
    private final List<String> contextKeys;
    private final @Nullable ObservationRegistry observations;
    private final long maxPayloadSize;

    private InteractionOptions(@Nullable Publisher<Lease> leases, List<String> contextKeys,
                               @Nullable ObservationRegistry observations, long maxPayloadSize) {
        this.leases = leases;
        this.contextKeys = contextKeys;
        this.observations = observations;
        this.maxPayloadSize = maxPayloadSize;
    }

    /** No leases, no context entries, no observations. */
    public static InteractionOptions defaults() {
        return DEFAULTS;
    }

    /**
     * As a responder, admit requests only under these leases (e.g. {@link Lease#every}); the session sends each to
     * the requester as it is emitted, and stops when the session ends.
     */
    public InteractionOptions lease(Publisher<Lease> leases) {
        return new InteractionOptions(Objects.requireNonNull(leases, "leases"), contextKeys, observations,
                maxPayloadSize);
    }

    /**
     * As a requester, send the requester's Reactor {@code Context} entries under these keys (their values as
     * strings) with each request; as a responder, restore them in the {@code Context} of the handler's publisher.
     * Only the keys named here travel: a {@code Context} often holds what must stay in the process.
     */
    public InteractionOptions propagateContext(String... keys) {
        for (String k : keys) {
            Objects.requireNonNull(k, "key");
        }
        return new InteractionOptions(leases, List.of(keys), observations, maxPayloadSize);
    }

    /**
     * Observe every request on both sides ({@code rivulet.requests}: a sender context on the requester, a receiver
     * context on the responder, so a tracing bridge propagates the trace through the request's headers, W3C
     * {@code traceparent} for instance), parented by the requester's current observation.
     */
    public InteractionOptions observations(ObservationRegistry registry) {
        return new InteractionOptions(leases, contextKeys, Objects.requireNonNull(registry, "registry"),
                maxPayloadSize);
    }

    /**
     * The most this side holds of payloads arriving in fragments, all streams of the session together (a payload
     * larger than one frame arrives in fragments and is put together before it is delivered): a peer sending more
     * fails the stream it sends on. Default {@value #DEFAULT_MAX_PAYLOAD} bytes; at most 2 GiB.
     */
    public InteractionOptions maxPayloadSize(long bytes) {
        if (bytes < 0 || bytes > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("maxPayloadSize " + bytes);
        }
        return new InteractionOptions(leases, contextKeys, observations, bytes);
    }

    @Nullable Publisher<Lease> leases() {
        return leases;
    }

    long maxPayloadSize() {
        return maxPayloadSize;
    }

    List<String> contextKeys() {
        return contextKeys;
    }

    @Nullable ObservationRegistry observations() {
        return observations;
    }
}
