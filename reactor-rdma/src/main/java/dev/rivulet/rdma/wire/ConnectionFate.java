package dev.rivulet.rdma.wire;

import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.engine.WireEvents;
import dev.rivulet.core.engine.wire.WireState;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.rdma.bootstrap.LivenessChannel;
import org.jspecify.annotations.Nullable;

/**
 * How one RDMA connection ends, the same on libfabric and on verbs. Three things can end it:
 * <ul>
 *   <li>the <b>bootstrap liveness channel</b> hears the peer's goodbye (an orderly close, reported to the engine as
 *       the peer's {@code CLOSE}) or loses the peer ({@link #peerGone}, from the channel's thread);</li>
 *   <li>an operation reports a <b>lost connection</b> ({@link #noteLoss}): a peer that closes gracefully also resets
 *       what was still on its way, and its goodbye may be read by the bootstrap channel a moment after that, so the
 *       connection breaks only if no goodbye comes within {@link #LOSS_GRACE_NANOS}, as the clock and the channel's
 *       reading both tell ({@link #waitForGoodbyeOn});</li>
 *   <li>the wire finds something it cannot go on from and <b>breaks</b> it at once ({@link #broken}).</li>
 * </ul>
 * The goodbye travels on the bootstrap connection and may overtake the peer's last messages on the fabric, so it
 * says how many messages the peer sent, and is taken only once as many arrived and were handed up; one that does not
 * come within the peer timeout was lost with the connection, which then breaks instead. The wire's own close and the
 * first break are core's {@link WireState}, so a break is reported to the engine once, and never after the close.
 * Progress thread only, except {@link #peerGone}.
 */
public final class ConnectionFate {

    /** How long a lost operation waits for the peer's goodbye before the connection breaks. */
    public static final long LOSS_GRACE_NANOS = 500_000_000L;

    private final String provider;
    private final String remoteAddress;
    private final long peerTimeoutNanos;

    private volatile boolean peerClosed;
    private volatile boolean peerLost;
    private volatile @Nullable String lostReason;
    /** How many messages the peer says it sent, from its goodbye (-1: it did not say), and when it was heard. */
    private volatile long goodbyeCount = -1;
    private long goodbyeHeard;
    private boolean peerEventReported;

    private @Nullable TransportException pendingLoss;
    private long lossNoticed;
    /** The bootstrap channel a lost operation waits on for the goodbye; null in tests without one. */
    private volatile @Nullable LivenessChannel goodbyeChannel;

    private final WireState state = new WireState();
    private boolean drained;

    public ConnectionFate(String provider, String remoteAddress, LivenessSettings liveness) {
        this.provider = provider;
        this.remoteAddress = remoteAddress;
        this.peerTimeoutNanos = liveness.peerTimeout().toNanos();
    }

    /**
     * The bootstrap channel saw the peer say goodbye ({@code graceful}, after its sends delivered {@code sentByPeer}
     * messages, or -1 when it did not count them) or vanish ({@code reason}). Any thread.
     */
    public void peerGone(boolean graceful, long sentByPeer, @Nullable String reason) {
        if (graceful) {
            goodbyeCount = sentByPeer;
            peerClosed = true;
        } else {
            lostReason = reason;
            peerLost = true;
        }
    }

    /** Whether the bootstrap channel said the peer closed gracefully. */
    public boolean peerClosed() {
        return peerClosed;
    }

    /** Whether the bootstrap channel heard the peer's goodbye or lost the peer. */
    public boolean peerGone() {
        return peerClosed || peerLost;
    }

    /**
     * Reports the peer's goodbye or loss to the engine, once: a goodbye as the peer's {@code CLOSE} once
     * {@code messagesArrived} reached the count it announced and {@code handedUp} (nothing that arrived waits to be
     * handed up), a loss as a break. Returns whether it reported something now.
     */
    public boolean reportPeer(WireEvents events, long now, long messagesArrived, boolean handedUp) {
        if (peerEventReported || !(peerClosed || peerLost)) {
            return false;
        }
        if (peerLost) {
            peerEventReported = true;
            broken(events, new ConnectionLostException("peer at " + remoteAddress + " is gone: " + lostReason,
                    provider, 0, null, null));
            return true;
        }
        long due = goodbyeCount;
        if (goodbyeHeard == 0) {
            goodbyeHeard = now | 1;
        }
        if (due < 0 || (messagesArrived >= due && handedUp)) {
            peerEventReported = true;
            events.received(ControlWord.encode(ControlWord.CLOSE, 0), null);
            return true;
        }
        if (now - goodbyeHeard > peerTimeoutNanos) {
            peerEventReported = true;
            broken(events, new ConnectionLostException("peer at " + remoteAddress + " closed after sending " + due
                    + " messages, of which " + messagesArrived + " arrived", provider, 0, null, null));
        }
        return false;
    }

    /**
     * An operation found the connection lost ({@code cause}) at {@code now}: remembered, unless a loss is already
     * waiting, for {@link #breakIfLossOutlived}.
     */
    public void noteLoss(TransportException cause, long now) {
        if (pendingLoss == null) {
            pendingLoss = cause;
            lossNoticed = now;
        }
    }

    /** Whether an operation found the connection lost and its grace period runs: nothing more should be posted. */
    public boolean lossPending() {
        return pendingLoss != null;
    }

    /**
     * The bootstrap channel whose goodbye a lost operation waits for: the grace period then ends only once the
     * channel has read what the peer sent up to its end, so a goodbye that arrived in time but waits for the
     * channel's thread (on a busy machine, or after a pause of the process) is still heard.
     */
    public void waitForGoodbyeOn(LivenessChannel channel) {
        this.goodbyeChannel = channel;
    }

    /**
     * Breaks the connection with the loss noted, once no goodbye came within the grace period (by the clock, and by
     * what the bootstrap channel has read); returns whether.
     */
    public boolean breakIfLossOutlived(WireEvents events, long now) {
        TransportException loss = pendingLoss;
        if (loss == null || peerClosed || peerEventReported || now - lossNoticed <= LOSS_GRACE_NANOS) {
            return false;
        }
        LivenessChannel channel = goodbyeChannel;
        if (channel != null && channel.caughtUpTo() - lossNoticed <= LOSS_GRACE_NANOS) {
            return false; // what the peer sent within the grace period is not all read yet
        }
        broken(events, loss);
        return true;
    }

    /**
     * The connection is broken by {@code cause}: the engine is told, unless it was told of an earlier cause or the
     * wire is closed; the close that follows aborts the bootstrap channel.
     */
    public void broken(WireEvents events, TransportException cause) {
        if (state.breakWith(cause)) {
            events.broken(cause);
        }
    }

    /** Whether the connection broke (the close then aborts the bootstrap channel rather than says goodbye). */
    public boolean isBroken() {
        return state.isBroken();
    }

    /** What broke the connection first, or null while nothing did. */
    public @Nullable TransportException breakCause() {
        return state.brokenBy();
    }

    /** What operations still posted when the wire closes end with: what broke it, or the close itself. */
    public TransportException closedCause() {
        return state.closeCause();
    }

    /** Marks the wire closed; false when it already was (a second close does nothing). */
    public boolean close() {
        return state.close();
    }

    public boolean closed() {
        return state.isClosed();
    }

    /** Throws once the wire is closed: nothing may be posted on it any more. */
    public void ensureOpen() {
        state.ensureOpen();
    }

    /**
     * Whether what is still posted must be reported now: true on the first poll after the close (the engine polls
     * once more after closing), false before the close and afterwards.
     */
    public boolean drainNow() {
        if (!state.isClosed() || drained) {
            return false;
        }
        drained = true;
        return true;
    }
}
