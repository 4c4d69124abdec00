package dev.rivulet.core.interaction;

import reactor.core.publisher.Flux;

import java.time.Duration;
import java.util.Objects;

/**
 * A responder's promise to admit up to {@code requests} new requests within {@code ttl} of sending it (RSocket's
 * LEASE): each lease replaces the previous one. A requester that has been sent a lease fails a request it does not
 * cover at once, with a retryable {@link dev.rivulet.core.error.RequestRejectedException}, instead of queueing it;
 * the responder rejects one that reaches it anyway the same way.
 *
 * @param ttl      how long the lease is valid after it was sent
 * @param requests how many requests it admits in that time
 */
public record Lease(Duration ttl, int requests) {

    public Lease {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero() || ttl.toMillis() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("lease ttl " + ttl);
        }
        if (requests < 0) {
            throw new IllegalArgumentException("lease of " + requests + " requests");
        }
    }

    /** A lease of {@code requests} every {@code interval}, each valid for that interval: a fixed admission rate. */
    public static Flux<Lease> every(Duration interval, int requests) {
        Lease lease = new Lease(interval, requests);
        return Flux.interval(Duration.ZERO, interval).map(tick -> lease);
    }
}
