package dev.rivulet.rdma.wire;

import dev.rivulet.core.liveness.LivenessSettings;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class WriteTimeoutTest {

    private final WriteTimeout timeout = new WriteTimeout(LivenessSettings.defaults()
            .writeTimeout(Duration.ofSeconds(8)));

    @Test
    void aLargeOperationGetsASecondPerMebibyteOnTop() {
        assertThat(timeout.dueBy(100, 0)).isEqualTo(100 + 8_000_000_000L);
        assertThat(timeout.dueBy(100, 4 << 20)).isBetween(100 + 11_990_000_000L, 100 + 12_000_000_000L);
    }

    @Test
    void itIsLookedForAFewTimesPerTimeoutNotOnEveryPoll() {
        long now = 5_000_000_000L;
        assertThat(timeout.scanDue(now)).isTrue();
        assertThat(timeout.scanDue(now + 1_000)).isFalse();
        assertThat(timeout.scanDue(now + 1_000_000_000L)).isTrue();
    }

    @Test
    void theErrorNamesThePeerAndTheSetting() {
        assertThat(timeout.stalled("peer:1", "test").getMessage()).contains("peer:1").contains("8s")
                .contains("liveness.writeTimeout");
    }
}
