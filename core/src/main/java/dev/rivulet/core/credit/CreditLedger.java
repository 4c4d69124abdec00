package dev.rivulet.core.credit;

/**
 * One connection's credit accounts, both directions (see {@code docs/credit-protocol.md}). The engine keeps it; its
 * wire sees it through the {@link #gate() gate}. Progress thread only.
 *
 * <p><b>Receive side.</b> Every receive slot this side posts is one credit granted to the peer ({@link #grant}). A
 * granted credit is, in turn:
 * <ul>
 *   <li><em>unused</em>: no arrival has used it yet, the peer may still send a message against it;</li>
 *   <li><em>arriving</em>: a wire admitted a message against it ({@link CreditGate#admit}) that the engine has not
 *       taken yet (a stream wire admits a message at its header, long before its last byte arrives);</li>
 *   <li><em>used</em>: the engine took the message it carried ({@link CreditGate#take}).</li>
 * </ul>
 * Independently, a granted credit is <em>owed</em> until a control word has announced it to the peer. Nothing is
 * ever lost: {@code granted == unused + arriving + used} at every step, and a credit still outstanding when the
 * endpoint closes is simply never used.
 *
 * <p><b>Send side.</b> The window is what the peer announced and this side has not used: {@code received == window
 * + sent}.
 */
public final class CreditLedger {

    private final int receiveDepth;
    private final CreditGate gate = new CreditGate(this);

    private long unused;
    private long arriving;
    private long owed;
    private long granted;
    private long used;
    private long maxOutstanding;

    private long window;
    private long received;
    private long sent;

    /** A ledger for a connection that posts at most {@code receiveDepth} receive slots. */
    public CreditLedger(int receiveDepth) {
        if (receiveDepth < 1) {
            throw new IllegalArgumentException("receive depth must be positive, got " + receiveDepth);
        }
        this.receiveDepth = receiveDepth;
    }

    /** The check every arriving message passes. */
    public CreditGate gate() {
        return gate;
    }

    // ---- receive side ----

    /**
     * How many more receive slots to post (hence credits to grant) for a subscriber that asked for {@code demand}
     * more messages while {@code undelivered} are already here: the receive depth and the wire's own limit
     * ({@code wireWindow}) bound what is outstanding, and what already arrived counts against the demand.
     *
     * <p>Slots go in batches of at least a quarter of that bound while the peer still holds credits or messages
     * wait here, so a stream consumed one message at a time posts receives and grants credits once per batch, not
     * once per message. With nothing outstanding and nothing waiting the peer could be stalled, so then whatever is
     * wanted goes at once (a subscriber asking for one message at a time is never kept waiting).
     */
    public int slotsToGrant(long demand, int wireWindow, int undelivered) {
        long bound = Math.min(Math.min(demand, receiveDepth), wireWindow);
        long held = outstanding() + undelivered;
        long want = bound - held;
        if (want <= 0 || held > 0 && want < Math.max(1, bound / 4)) {
            return 0;
        }
        return (int) want;
    }

    /** {@code n} more receive slots were posted: the peer may send {@code n} more messages, once told. */
    public void grant(int n) {
        unused += n;
        owed += n;
        granted += n;
        maxOutstanding = Math.max(maxOutstanding, outstanding());
    }

    /** The credits an outgoing data word carries: all that is owed, as much as one word can hold. */
    public long piggybackGrant() {
        return Math.min(owed, ControlWord.MAX_CREDITS);
    }

    /**
     * The credits a standalone {@link ControlWord#CREDIT} word should announce now, or 0 when they had better wait
     * for a data word to ride on. While the peer still holds more than three quarters of a window of announced
     * credits it is not starved: letting the grant grow spares a standalone word per cycle (which would double the
     * messages of a ping-pong). From there a one-way stream would soon wait for credits a round trip away, so they
     * go now, a quarter window at a time ({@link #slotsToGrant} grants them so: each batch is announced as it is
     * granted). Small windows ({@code limitRate}) never reach the threshold and are granted at once.
     */
    public long standaloneGrant() {
        if (owed == 0 || outstanding() - owed > Math.max(2, receiveDepth - receiveDepth / 4)) {
            return 0;
        }
        return Math.min(owed, ControlWord.MAX_CREDITS);
    }

    /** A word announcing {@code credits} of what is owed went to the peer. */
    public void announced(long credits) {
        if (credits < 0 || credits > owed) {
            throw new IllegalArgumentException("announced " + credits + " credits, " + owed + " owed");
        }
        owed -= credits;
    }

    /** Credits granted that no message has used yet as far as the engine knows: its posted receive slots. */
    public long outstanding() {
        return unused + arriving;
    }

    /** Credits granted that no arrival has used yet, not even one a wire is still reading. */
    public long unused() {
        return unused;
    }

    /** Credits granted and not yet announced to the peer. */
    public long owed() {
        return owed;
    }

    /** Credits granted to the peer in all. */
    public long granted() {
        return granted;
    }

    /** Messages the peer sent against its credits that the engine took. */
    public long used() {
        return used;
    }

    /** The most credits that were ever outstanding at once. */
    public long maxOutstanding() {
        return maxOutstanding;
    }

    /** A wire admitted {@code n} messages: their credits are used, their messages not taken yet. */
    void admitted(int n) {
        unused -= n;
        arriving += n;
    }

    /** The engine took {@code n} messages: first those a wire admitted, the rest straight from unused credits. */
    void took(int n) {
        long fromArriving = Math.min(n, arriving);
        arriving -= fromArriving;
        unused -= n - fromArriving;
        used += n;
    }

    // ---- send side ----

    /** The peer announced {@code credits} more. */
    public void peerGranted(long credits) {
        window += credits;
        received += credits;
    }

    /** Messages this side may still send: what the peer announced and this side has not used. */
    public long window() {
        return window;
    }

    /** {@code n} messages went to the peer, one credit each. */
    public void sent(int n) {
        if (n > window) {
            throw new IllegalStateException(n + " messages sent with " + window + " credits");
        }
        window -= n;
        sent += n;
    }

    /** Credits the peer announced in all. */
    public long received() {
        return received;
    }

    /** Messages sent to the peer in all. */
    public long sentMessages() {
        return sent;
    }
}
