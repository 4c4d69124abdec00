package dev.rivulet.core.interaction;

/**
 * The requests the latest lease still admits: renewed by each lease, taken one per request until it runs out or
 * expires. A side that never saw a lease admits everything (leases are the responder's choice). Thread-safe.
 */
final class LeaseWindow {

    private volatile boolean leased;
    private long expiresAt;
    private int remaining;

    /** A lease of {@code requests} valid for {@code ttlNanos} from now replaces the previous one. */
    synchronized void renew(int requests, long ttlNanos) {
        expiresAt = System.nanoTime() + ttlNanos;
        remaining = requests;
        leased = true;
    }

    /** Takes one request from the lease; false when a lease is in force and admits no more now. */
    boolean tryTake() {
        if (!leased) {
            return true;
        }
        synchronized (this) {
            if (remaining <= 0 || System.nanoTime() - expiresAt > 0) {
                return false;
            }
            remaining--;
            return true;
        }
    }

    /** What a rejection says. */
    synchronized String describe() {
        return remaining <= 0 ? "the responder's lease admits no more requests now" : "the responder's lease expired";
    }
}
