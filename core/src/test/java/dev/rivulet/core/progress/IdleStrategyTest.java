package dev.rivulet.core.progress;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class IdleStrategyTest {

    private final List<Long> parks = new ArrayList<>();
    private final IdleStrategy.Parker parker = parks::add;

    @Test
    void backoffSpinsYieldsThenParksDoublingUpToTheMaximum() {
        IdleStrategy s = IdleStrategy.backoff(2, 1, 10, 35);
        for (int i = 0; i < 7; i++) {
            s.idle(0, parker);
        }
        assertThat(parks).containsExactly(10L, 20L, 35L, 35L);
    }

    @Test
    void workStartsTheBackoffOver() {
        IdleStrategy s = IdleStrategy.backoff(1, 0, 10, 1_000);
        s.idle(0, parker);
        s.idle(0, parker);
        s.idle(0, parker);
        s.idle(3, parker);
        s.idle(0, parker);
        s.idle(0, parker);
        assertThat(parks).containsExactly(10L, 20L, 10L);
    }

    @Test
    void blockingSleepsUntilWokenAfterItsSpinsWithoutOverflowing() {
        IdleStrategy s = IdleStrategy.blocking(3);
        for (int i = 0; i < 6; i++) {
            s.idle(0, parker);
        }
        // no timed polling: every sleep asks for as long as it takes (the loop caps it for its own timers)
        assertThat(parks).containsExactly(Long.MAX_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);
    }

    @Test
    void blockingBacksOffLikeTheDefaultThenSleepsUntilWoken() {
        IdleStrategy s = IdleStrategy.blocking();
        for (int i = 0; i < 200 + 10 + 9; i++) {
            s.idle(0, parker);
        }
        // short sleeps while work may still come, then none that ends on its own
        assertThat(parks).containsExactly(10_000L, 20_000L, 40_000L, 80_000L, 160_000L, 320_000L, 640_000L,
                Long.MAX_VALUE, Long.MAX_VALUE);
    }

    @Test
    void workEndsTheBlockingSleepsAndStartsTheBackoffOver() {
        IdleStrategy s = IdleStrategy.blocking();
        for (int i = 0; i < 200 + 10 + 8; i++) {
            s.idle(0, parker);
        }
        s.idle(1, parker);
        for (int i = 0; i < 200 + 10 + 1; i++) {
            s.idle(0, parker);
        }
        assertThat(parks).endsWith(Long.MAX_VALUE, 10_000L);
    }

    @Test
    void invalidBackoffIsRefused() {
        assertThatIllegalArgumentException().isThrownBy(() -> IdleStrategy.backoff(-1, 0, 1, 1));
        assertThatIllegalArgumentException().isThrownBy(() -> IdleStrategy.backoff(0, 0, 10, 5));
    }
}
