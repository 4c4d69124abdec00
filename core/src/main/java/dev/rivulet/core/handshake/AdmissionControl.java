package dev.rivulet.core.handshake;

import dev.rivulet.core.security.SecuritySettings;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A listener's bounds on the connections it holds: at most {@code maxConnections} at once, of which at most
 * {@code maxHandshakes} not yet through the handshake. A connection beyond either bound is closed at once, before
 * anything is allocated for it, so a flood of connections (or of peers that never finish their hello) costs a
 * listener a file descriptor for a moment, never a thread or a buffer for long.
 */
public final class AdmissionControl {

    private final int maxConnections;
    private final int maxHandshakes;
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger handshakes = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();

    public AdmissionControl(SecuritySettings settings) {
        this.maxConnections = settings.maxConnections();
        this.maxHandshakes = settings.maxHandshakes();
    }

    /** A ticket for a connection just accepted, or null when the listener is full (close the socket). */
    public Ticket admit() {
        if (connections.incrementAndGet() > maxConnections) {
            connections.decrementAndGet();
            refused.incrementAndGet();
            return null;
        }
        if (handshakes.incrementAndGet() > maxHandshakes) {
            handshakes.decrementAndGet();
            connections.decrementAndGet();
            refused.incrementAndGet();
            return null;
        }
        return new Ticket();
    }

    /** Connections admitted and not yet closed. */
    public int connections() {
        return connections.get();
    }

    /** Connections admitted whose handshake has not finished. */
    public int handshakes() {
        return handshakes.get();
    }

    /** Connections closed at once because a bound was reached. */
    public int refused() {
        return refused.get();
    }

    /** One admitted connection. Both methods are idempotent and may be called from any thread. */
    public final class Ticket {
        private final AtomicBoolean handshaking = new AtomicBoolean(true);
        private final AtomicBoolean open = new AtomicBoolean(true);

        private Ticket() {
        }

        /** The handshake finished: the connection no longer counts against the handshake bound. */
        public void established() {
            if (handshaking.compareAndSet(true, false)) {
                handshakes.decrementAndGet();
            }
        }

        /** The connection is gone (at any stage). */
        public void close() {
            established();
            if (open.compareAndSet(true, false)) {
                connections.decrementAndGet();
            }
        }
    }
}
