package dev.rivulet.core.credit;

import dev.rivulet.core.error.CreditProtocolException;

import java.lang.foreign.MemorySegment;

/**
 * The check every arriving message of a connection passes against its {@link CreditLedger}, and the one place the
 * credit rules are refused with a {@link CreditProtocolException}. Progress thread only.
 *
 * <p>Two callers, one account. A wire that reads a message before it has memory for it (a byte stream, a shared
 * ring) admits it on arrival ({@link #requireCredit}, {@link #admit}, {@link #admitBatch}), so a peer without a
 * credit costs no buffer. The engine then {@linkplain #take takes} every message a wire hands it: what the wire
 * admitted already is taken as it stands, anything else is checked here. Either way each message uses one credit
 * once. A wire that admits messages admits every {@code DATA} and {@code BATCH} it hands over, in order.
 */
public final class CreditGate {

    private final CreditLedger ledger;

    CreditGate(CreditLedger ledger) {
        this.ledger = ledger;
    }

    /** Refuses a word with reserved bits set or an unknown type. */
    public static void checkWord(long word) {
        if (!ControlWord.isValid(word)) {
            throw new CreditProtocolException("malformed control word 0x" + Long.toHexString(word));
        }
    }

    /** Credits the peer holds for messages that have not begun to arrive. */
    public long credits() {
        return ledger.unused();
    }

    /**
     * A message begins to arrive: refuses it unless the peer holds a credit, using none (for a {@link
     * ControlWord#BATCH} whose count is known only once it is whole, or a message the wire cannot take yet).
     */
    public void requireCredit() {
        if (ledger.unused() <= 0) {
            throw withoutCredit();
        }
    }

    /** A {@link ControlWord#DATA} message arrives: uses one credit, or refuses it when the peer holds none. */
    public void admit() {
        requireCredit();
        ledger.admitted(1);
    }

    /**
     * A whole {@link ControlWord#BATCH} frame of {@code length} bytes arrived: uses one credit per packed message;
     * refuses a malformed frame or one that packs more messages than the peer holds credits. Returns the count.
     */
    public int admitBatch(MemorySegment frame, long length) {
        int n = countBatch(frame, length, ledger.unused());
        ledger.admitted(n);
        return n;
    }

    /**
     * The engine takes a message of {@code type} ({@link ControlWord#DATA} or {@link ControlWord#BATCH}) that a wire
     * handed it, {@code length} bytes of {@code frame}: uses what the wire admitted for it, else checks and uses
     * credits here. Returns how many messages it holds.
     */
    public int take(int type, MemorySegment frame, long length) {
        int n;
        if (type == ControlWord.BATCH) {
            n = countBatch(frame, length, ledger.outstanding());
        } else {
            if (ledger.outstanding() <= 0) {
                throw withoutCredit();
            }
            n = 1;
        }
        ledger.took(n);
        return n;
    }

    private static int countBatch(MemorySegment frame, long length, long credits) {
        int n = BatchFraming.count(frame, length);
        if (n < 0) {
            throw new CreditProtocolException("malformed coalesced frame");
        }
        if (n > credits) {
            throw new CreditProtocolException("peer sent " + n + " coalesced messages with " + credits + " credits");
        }
        return n;
    }

    private static CreditProtocolException withoutCredit() {
        return new CreditProtocolException("peer sent a message without a credit");
    }
}
