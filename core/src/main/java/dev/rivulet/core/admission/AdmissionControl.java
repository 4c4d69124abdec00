package dev.rivulet.core.admission;

import dev.rivulet.core.security.SecuritySettings;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * A listener's bounds on the connections it holds, in all and per source: at most {@code maxConnections} at once
 * ({@code maxConnectionsPerSource} from one source), of which at most {@code maxHandshakes}
 * ({@code maxHandshakesPerSource} from one source) not yet through their set-up.
 *
 * <ul>
 *   <li>A connection beyond a connection bound is refused: its socket is closed at once, before anything is
 *       allocated for it. So is one whose fixed buffers the listener's {@link ReceiveBudget} cannot cover, where
 *       connections cannot authenticate (no shared secret, no client certificates): then each holds its buffers'
 *       worth of {@code security.listenerMemory} from admission until it closes, which bounds what strangers can
 *       make a listener commit in all.</li>
 *   <li>A connection beyond a set-up bound is admitted and the <em>oldest</em> unfinished set-up gives way (its
 *       {@code evict} action shuts its socket down, so its set-up thread fails and lets go): first the oldest of
 *       the same source, else the oldest of all. Refusing the newcomer instead would let sockets that connect and
 *       say nothing, renewed before each deadline, keep every later client out; with eviction a newcomer is only
 *       turned away if {@code maxHandshakes} newer connections arrive while its own set-up runs.</li>
 * </ul>
 * A source is an IPv4 address, an IPv6 /64 prefix (what one host or one subscriber is usually given), or whatever
 * key a transport passes (shm:// passes the peer's user). Thread-safe; called once per connection, off the data path.
 */
public final class AdmissionControl {

    private final int maxConnections;
    private final int maxHandshakes;
    private final int maxConnectionsPerSource;
    private final int maxHandshakesPerSource;
    private final Counters counters;
    /** What each admitted connection holds of {@link #budget} (0: nothing, its peers authenticate). */
    private final ReceiveBudget budget;
    private final long connectionCost;
    /** Unfinished set-ups, oldest first. Guarded by {@code this}, as everything below. */
    private final LinkedHashSet<Ticket> pending = new LinkedHashSet<>();
    private final Map<Object, Source> sources = new HashMap<>();
    private int connections;
    private int refused;
    private int evicted;

    /** Which bound closed a connection at once. */
    public enum Bound {
        /** {@code security.maxConnections}. */
        LISTENER,
        /** {@code security.maxConnectionsPerSource}. */
        SOURCE,
        /** {@code security.listenerMemory}, spent by the connections that have not authenticated. */
        MEMORY
    }

    /** What admission decisions a transport counts (its meters). */
    public interface Counters {
        Counters NONE = new Counters() {
            @Override
            public void refused(Bound bound) {
            }

            @Override
            public void evicted() {
            }
        };

        /** A connection was closed at once because {@code bound} was reached. */
        void refused(Bound bound);

        /** An unfinished set-up was ended to make room for a newer connection. */
        void evicted();
    }

    public AdmissionControl(SecuritySettings settings) {
        this(settings, Counters.NONE, null, 0);
    }

    /**
     * @param budget         the listener's receive budget, from which each connection holds {@code connectionCost}
     *                       bytes while it lasts, where {@code settings} let peers in without authenticating
     * @param connectionCost what one connection's fixed buffers take (0 where they are not counted)
     */
    public AdmissionControl(SecuritySettings settings, Counters counters, ReceiveBudget budget, long connectionCost) {
        this.maxConnections = settings.maxConnections();
        this.maxHandshakes = settings.maxHandshakes();
        this.maxConnectionsPerSource = Math.min(settings.maxConnectionsPerSource(), maxConnections);
        this.maxHandshakesPerSource = Math.min(settings.maxHandshakesPerSource(), maxHandshakes);
        this.counters = counters;
        boolean counted = budget != null && connectionCost > 0 && !settings.authenticatesPeers();
        this.budget = counted ? budget : null;
        this.connectionCost = counted ? connectionCost : 0;
    }

    /** The source key of a TCP peer at {@code address}: the IPv4 address, or the IPv6 address's /64 prefix. */
    public static Object sourceOf(InetAddress address) {
        if (address instanceof Inet6Address v6) {
            byte[] b = v6.getAddress();
            boolean mapped = true; // ::ffff:a.b.c.d is an IPv4 peer
            for (int i = 0; i < 10; i++) {
                mapped &= b[i] == 0;
            }
            mapped &= b[10] == (byte) 0xFF && b[11] == (byte) 0xFF;
            if (mapped) {
                return "v4 " + (b[12] & 0xFF) + "." + (b[13] & 0xFF) + "." + (b[14] & 0xFF) + "." + (b[15] & 0xFF);
            }
            StringBuilder s = new StringBuilder("v6 ");
            for (int i = 0; i < 8; i += 2) {
                s.append(Integer.toHexString((b[i] & 0xFF) << 8 | (b[i + 1] & 0xFF))).append(':');
            }
            return s.append(":/64").toString();
        }
        if (address instanceof Inet4Address v4) {
            return "v4 " + v4.getHostAddress();
        }
        return String.valueOf(address);
    }

    /**
     * A ticket for a connection just accepted from {@code source}, or null when a connection bound is reached
     * (close the socket). {@code evict} ends this connection's set-up from another thread if a newer connection needs
     * its slot: it must make the set-up fail promptly (shut the socket down), not close the descriptor under a thread
     * that may still use it. Evictions this admission causes run on the calling thread before it returns.
     */
    public Ticket admit(Object source, Runnable evict) {
        List<Ticket> out = new ArrayList<>(1);
        Ticket t;
        synchronized (this) {
            Source s = sources.computeIfAbsent(source, k -> new Source());
            Bound bound = connections >= maxConnections ? Bound.LISTENER
                    : s.connections >= maxConnectionsPerSource ? Bound.SOURCE
                    : budget != null && !budget.hold(connectionCost) ? Bound.MEMORY : null;
            if (bound != null) {
                refused++;
                if (s.connections == 0) {
                    sources.remove(source);
                }
                counters.refused(bound);
                t = null;
            } else {
                if (s.pending >= maxHandshakesPerSource) {
                    out.add(oldestPending(source));
                } else if (pending.size() >= maxHandshakes) {
                    out.add(pending.iterator().next());
                }
                for (Ticket e : out) {
                    e.evictLocked();
                }
                t = new Ticket(source, s, evict);
                s.connections++;
                s.pending++;
                connections++;
                pending.add(t);
            }
        }
        for (Ticket e : out) {
            counters.evicted();
            e.evict.run();
        }
        return t;
    }

    private Ticket oldestPending(Object source) {
        for (Ticket t : pending) {
            if (t.source.equals(source)) {
                return t;
            }
        }
        throw new IllegalStateException("no unfinished set-up of " + source + " although it counts some");
    }

    /** Connections admitted and not yet closed or evicted. */
    public synchronized int connections() {
        return connections;
    }

    /** Connections admitted whose set-up has not finished. */
    public synchronized int handshakes() {
        return pending.size();
    }

    /** Connections closed at once because a connection bound was reached. */
    public synchronized int refused() {
        return refused;
    }

    /** Unfinished set-ups ended to make room for newer connections. */
    public synchronized int evicted() {
        return evicted;
    }

    /** Connections held from {@code source} (for tests and diagnostics). */
    public synchronized int connections(Object source) {
        Source s = sources.get(source);
        return s == null ? 0 : s.connections;
    }

    /** What one source holds. */
    private static final class Source {
        int connections;
        int pending;
    }

    /** One admitted connection. Both methods are idempotent and may be called from any thread. */
    public final class Ticket {
        private final Object source;
        private final Source counts;
        private final Runnable evict;
        private boolean handshaking = true;
        private boolean open = true;

        private Ticket(Object source, Source counts, Runnable evict) {
            this.source = source;
            this.counts = counts;
            this.evict = evict;
        }

        /**
         * The set-up finished: the connection no longer counts against the set-up bounds, and can no longer be
         * evicted. False when it was evicted first (its socket is being shut down: the set-up must not go on).
         */
        public boolean established() {
            synchronized (AdmissionControl.this) {
                if (!open) {
                    return false;
                }
                if (handshaking) {
                    handshaking = false;
                    counts.pending--;
                    pending.remove(this);
                }
                return true;
            }
        }

        /** The connection is gone (at any stage). */
        public void close() {
            synchronized (AdmissionControl.this) {
                if (!open) {
                    return;
                }
                release();
            }
        }

        private void evictLocked() {
            evicted++;
            release();
        }

        private void release() {
            open = false;
            if (handshaking) {
                handshaking = false;
                counts.pending--;
                pending.remove(this);
            }
            counts.connections--;
            connections--;
            if (counts.connections == 0) {
                sources.remove(source);
            }
            if (budget != null) {
                budget.release(connectionCost);
            }
        }
    }

    @Override
    public synchronized String toString() {
        return "AdmissionControl[" + connections + " connections from " + sources.size() + " sources, "
                + pending.size() + " in set-up, " + refused + " refused, " + evicted + " evicted]";
    }
}
