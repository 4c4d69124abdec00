package dev.rivulet.core.credit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link CreditLedger#slotsToGrant}: receive slots in batches, never a stalled peer, never beyond the bound. */
class CreditLedgerGrantPolicyTest {

    private static final int DEPTH = 128;

    private final CreditLedger ledger = new CreditLedger(DEPTH);

    /** The peer sends {@code n} messages against its credits and the subscriber takes them. */
    private void consumed(int n) {
        for (int i = 0; i < n; i++) {
            ledger.gate().admit();
        }
        ledger.took(n);
    }

    @Test
    void withNothingOutstandingEverythingWantedGoesAtOnce() {
        assertThat(ledger.slotsToGrant(1, Integer.MAX_VALUE, 0)).isEqualTo(1);
        assertThat(ledger.slotsToGrant(Long.MAX_VALUE, Integer.MAX_VALUE, 0)).isEqualTo(DEPTH);
        assertThat(ledger.slotsToGrant(Long.MAX_VALUE, 16, 0)).as("the wire's window bounds it").isEqualTo(16);
    }

    @Test
    void whileThePeerHoldsCreditsSlotsGoInBatchesOfAQuarterWindow() {
        ledger.grant(DEPTH);
        for (int i = 1; i < DEPTH / 4; i++) {
            consumed(1);
            assertThat(ledger.slotsToGrant(Long.MAX_VALUE, Integer.MAX_VALUE, 0)).as("after %d", i).isZero();
        }
        consumed(1);
        assertThat(ledger.slotsToGrant(Long.MAX_VALUE, Integer.MAX_VALUE, 0)).isEqualTo(DEPTH / 4);
    }

    @Test
    void messagesWaitingHereCountAsHeldAndAgainstTheDemand() {
        assertThat(ledger.slotsToGrant(10, Integer.MAX_VALUE, 10)).isZero();
        assertThat(ledger.slotsToGrant(DEPTH, Integer.MAX_VALUE, DEPTH - 1)).as("less than a quarter").isZero();
        assertThat(ledger.slotsToGrant(DEPTH, Integer.MAX_VALUE, DEPTH / 2)).isEqualTo(DEPTH / 2);
    }

    @Test
    void aSmallDemandIsNeverKeptWaitingOnceThePeerRanOut() {
        ledger.grant(3);
        consumed(2);
        assertThat(ledger.slotsToGrant(3, Integer.MAX_VALUE, 0)).as("one credit still with the peer").isEqualTo(2);
        consumed(1);
        assertThat(ledger.slotsToGrant(1, Integer.MAX_VALUE, 0)).isEqualTo(1);
    }
}
