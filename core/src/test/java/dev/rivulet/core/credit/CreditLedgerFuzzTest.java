package dev.rivulet.core.credit;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * The credit protocol between two sides with real ledgers and gates ({@link CreditExchange}) through the interleaving
 * of demand, cancels, sends, coalesced frames, grants and closes that the fuzzer's data spells out: the window is
 * never exceeded, no credit is lost, the gate never refuses a peer that kept the rules, and credits keep flowing
 * while one side has demand and the other work. The build replays the corpus under {@code CreditLedgerFuzzTestInputs};
 * {@code -Pfuzz} searches for new interleavings.
 */
class CreditLedgerFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void creditsNeverExceedTheWindowNorGetLostNorStall(FuzzedDataProvider data) {
        CreditExchange.play(new CreditExchange.Choices() {
            @Override
            public int between(int min, int max) {
                return data.consumeInt(min, max);
            }

            @Override
            public boolean flip() {
                return data.consumeBoolean();
            }

            @Override
            public boolean hasMore() {
                return data.remainingBytes() > 0;
            }
        }, CreditExchange.MAX_STEPS);
    }
}
