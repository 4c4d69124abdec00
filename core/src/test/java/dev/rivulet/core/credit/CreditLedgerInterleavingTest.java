package dev.rivulet.core.credit;

import org.junit.jupiter.api.Test;

import java.util.random.RandomGenerator;
import java.util.random.RandomGeneratorFactory;

/**
 * The properties of {@link CreditLedgerFuzzTest} over a few hundred interleavings from fixed seeds, so that every
 * build explores fresh scripts even where the fuzz test only replays its corpus. A failure names its seed: the same
 * seed replays the same script.
 */
class CreditLedgerInterleavingTest {

    private static final int SCRIPTS = 400;
    /** A fixed algorithm, so that a seed means the same script on every JDK. */
    private static final RandomGeneratorFactory<RandomGenerator> GENERATORS = RandomGeneratorFactory.of("L64X128MixRandom");

    @Test
    void creditsNeverExceedTheWindowNorGetLostNorStall() {
        for (long seed = 1; seed <= SCRIPTS; seed++) {
            RandomGenerator random = GENERATORS.create(seed);
            try {
                CreditExchange.play(new CreditExchange.Choices() {
                    @Override
                    public int between(int min, int max) {
                        return random.nextInt(min, max + 1);
                    }

                    @Override
                    public boolean flip() {
                        return random.nextBoolean();
                    }

                    @Override
                    public boolean hasMore() {
                        return true;
                    }
                }, random.nextInt(CreditExchange.MAX_STEPS + 1));
            } catch (AssertionError e) {
                throw new AssertionError("script of seed " + seed + ": " + e.getMessage(), e);
            }
        }
    }
}
