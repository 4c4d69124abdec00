package dev.rivulet.core.admission;

import dev.rivulet.core.security.SecuritySettings;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The memory peers can make a listener commit <em>ahead of the bytes they sent</em>. A frame header announces a
 * length; committing that much at once is what lets a 16-byte header buy a 16 MiB buffer. A wire asks its
 * {@link Connection} before it commits memory on a peer's word:
 *
 * <ul>
 *   <li><b>Per connection.</b> A connection whose peer authenticated (a shared secret, a client certificate), or one
 *       this side dialled, may have a frame committed in full on its header. Any other gets {@code
 *       security.unauthenticatedMemory} (256 KiB) of allowance, grown by the bytes of the messages it has completed
 *       (a peer earns trust by sending what it announced), up to the largest message.</li>
 *   <li><b>Per listener.</b> What all its connections have committed ahead at once, with the fixed buffers of the
 *       connections that have not authenticated ({@link #hold}, taken when a listener admits one), stays within
 *       {@code security.listenerMemory} (512 MiB).</li>
 * </ul>
 * A frame that is not covered is not refused: its memory is committed as its bytes arrive (the wire grows the buffer,
 * doubling, so what it holds is at most twice what arrived). A peer can then hold memory only by sending bytes, and
 * how long a partial frame may sit is bounded by {@code security.minReceiveRate} ({@link TrickleDetector}), on every
 * connection.
 */
public final class ReceiveBudget {

    /**
     * The first buffer of a frame whose memory follows its bytes; each next one is twice as large
     * ({@link #nextPiece}), so it never holds more than twice what arrived, or this.
     */
    public static final int FIRST_PIECE = 64 << 10;

    /**
     * The next buffer of a frame of {@code length} bytes whose memory follows its bytes, once {@code need} bytes must
     * fit where a buffer of {@code current} is full: twice as large, at least {@code need}, at most {@code length}.
     */
    public static long nextPiece(long length, long need, long current) {
        return Math.min(length, Math.max(need, 2 * current));
    }

    private final boolean unlimited;
    private final long limit;
    private final long unauthenticated;
    private final long minReceiveRate;
    private final Counters counters;
    private final AtomicLong committed = new AtomicLong();

    /** What a transport counts of its budgets (its meters). */
    public interface Counters {
        Counters NONE = new Counters() {
            @Override
            public void committed(long delta) {
            }

            @Override
            public void slowFrame() {
            }
        };

        /** The bytes committed ahead of arrival changed by {@code delta}. */
        void committed(long delta);

        /** A connection was ended because a frame arrived slower than {@code security.minReceiveRate}. */
        void slowFrame();
    }

    private ReceiveBudget(boolean unlimited, SecuritySettings settings, Counters counters) {
        this.unlimited = unlimited;
        this.limit = settings.listenerMemory();
        this.unauthenticated = settings.unauthenticatedMemory();
        this.minReceiveRate = settings.minReceiveRate();
        this.counters = counters;
    }

    /**
     * The budget of connections this side dialled: it chose its peer, so nothing is committed more carefully (frames
     * must still keep moving).
     */
    public static ReceiveBudget dialled(SecuritySettings settings, Counters counters) {
        return new ReceiveBudget(true, settings, counters);
    }

    /** One listener's budget, from its {@code security.*} settings. */
    public static ReceiveBudget forListener(SecuritySettings settings, Counters counters) {
        return new ReceiveBudget(false, settings, counters);
    }

    /** Bytes committed ahead right now by this budget's connections together. */
    public long committed() {
        return committed.get();
    }

    /**
     * The budget of one connection with a peer that {@code authenticated} (or not), whose messages are at most
     * {@code maxMessage} bytes; its frames are judged for trickling over windows of {@code windowNanos} (the
     * heartbeat interval) from {@code now}.
     */
    public Connection connection(boolean authenticated, long maxMessage, long windowNanos, long now) {
        return new Connection(unlimited || authenticated ? maxMessage : Math.min(unauthenticated, maxMessage),
                maxMessage, new TrickleDetector(minReceiveRate, windowNanos, now));
    }

    /**
     * Holds {@code bytes} of this listener's total (for a connection's fixed buffers, while it lasts): false when that
     * would exceed it. Every {@code true} is matched by one {@link #release}.
     */
    public boolean hold(long bytes) {
        return tryReserve(bytes);
    }

    /** Gives back what {@link #hold} took. */
    public void release(long bytes) {
        if (!unlimited && bytes > 0) {
            committed.addAndGet(-bytes);
            counters.committed(-bytes);
        }
    }

    private boolean tryReserve(long bytes) {
        if (unlimited) {
            return true;
        }
        long c;
        do {
            c = committed.get();
            if (c + bytes > limit) {
                return false;
            }
        } while (!committed.compareAndSet(c, c + bytes));
        counters.committed(bytes);
        return true;
    }

    /** One connection's share; confined to the thread that receives for it. */
    public final class Connection {
        private final long maxMessage;
        private final TrickleDetector trickle;
        private long allowance;
        private long reserved;
        private long held;

        private Connection(long allowance, long maxMessage, TrickleDetector trickle) {
            this.allowance = allowance;
            this.maxMessage = maxMessage;
            this.trickle = trickle;
        }

        /**
         * The memory to take first for a frame announced at {@code length} bytes: all of it when it is small or the
         * budget lets the peer commit it ahead ({@link #commitAhead}: reserved until {@link #frameDone()}), else
         * {@link #FIRST_PIECE}, grown with {@link #nextPiece} as its bytes arrive.
         */
        public long firstPiece(long length) {
            return length <= FIRST_PIECE || commitAhead(length) ? length : FIRST_PIECE;
        }

        /**
         * Whether a frame announced at {@code length} bytes may be committed in full now: true reserves it (until
         * {@link #frameDone()}); false means its memory must follow its bytes.
         */
        public boolean commitAhead(long length) {
            if (length <= allowance && tryReserve(length)) {
                reserved = length;
                return true;
            }
            return false;
        }

        /**
         * The frame {@link #commitAhead} covered (if it did) is complete or abandoned: its reservation returns to
         * the listener. Idempotent.
         */
        public void frameDone() {
            long r = reserved;
            reserved = 0;
            release(r);
        }

        /**
         * Holds {@code bytes} more of the listener's total for as long as the connection lives, for memory this side
         * keeps ready for the peer (libfabric's posted eager buffers): false when the listener has no room left.
         */
        public boolean hold(long bytes) {
            if (!tryReserve(bytes)) {
                return false;
            }
            held += bytes;
            return true;
        }

        /** The connection is gone: its frame's reservation and whatever it {@link #hold held} return. Idempotent. */
        public void close() {
            frameDone();
            long h = held;
            held = 0;
            release(h);
        }

        /** A message of {@code bytes} arrived in full: the peer has shown it sends what it announces. */
        public void delivered(long bytes) {
            if (allowance < maxMessage) {
                allowance = Math.min(maxMessage, allowance + bytes);
            }
        }

        /** What this connection may commit ahead now. */
        public long allowance() {
            return allowance;
        }

        /** This side stopped reading for a while (its own backpressure): see {@link TrickleDetector#pausedByUs}. */
        public void pausedByUs() {
            trickle.pausedByUs();
        }

        /**
         * Whether the frame in progress is being trickled (see {@link TrickleDetector}); counted in the transport's
         * meters when it is, and the caller ends the connection.
         */
        public boolean trickling(long now, boolean midFrame, long frameNumber, long frameBytes) {
            boolean t = trickle.trickling(now, midFrame, frameNumber, frameBytes);
            if (t) {
                counters.slowFrame();
            }
            return t;
        }

        /** {@code security.minReceiveRate}, for error messages. */
        public long minReceiveRate() {
            return minReceiveRate;
        }
    }
}
