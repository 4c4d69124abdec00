package dev.rivulet.core.admission;

import dev.rivulet.core.security.SecuritySettings;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

class ReceiveBudgetTest {

    private static final long MIB = 1 << 20;
    private final AtomicLong gauge = new AtomicLong();
    private final ReceiveBudget.Counters counters = new ReceiveBudget.Counters() {
        @Override
        public void committed(long delta) {
            gauge.addAndGet(delta);
        }

        @Override
        public void slowFrame() {
        }
    };

    private ReceiveBudget.Connection connection(ReceiveBudget b, boolean authenticated) {
        return b.connection(authenticated, 16 * MIB, 5_000_000_000L, 0);
    }

    @Test
    void anUnauthenticatedPeerCommitsAheadOnlyWithinItsAllowance() {
        ReceiveBudget listener = ReceiveBudget.forListener(SecuritySettings.defaults(), counters);
        ReceiveBudget.Connection c = connection(listener, false);
        assertThat(c.commitAhead(16 * MIB)).as("16 MiB on a header").isFalse();
        assertThat(c.commitAhead(MIB)).as("beyond the default 256 KiB").isFalse();
        assertThat(c.commitAhead(MIB / 4)).isTrue();
        assertThat(gauge).hasValue(MIB / 4);
        c.frameDone();
        c.frameDone();
        assertThat(gauge).hasValue(0);
        assertThat(listener.committed()).isZero();
    }

    @Test
    void theAllowanceGrowsWithWhatThePeerDelivered() {
        ReceiveBudget.Connection c = connection(ReceiveBudget.forListener(SecuritySettings.defaults(), counters),
                false);
        c.delivered(4 * MIB);
        assertThat(c.allowance()).isEqualTo(4 * MIB + MIB / 4);
        assertThat(c.commitAhead(4 * MIB)).isTrue();
        c.frameDone();
        c.delivered(100 * MIB);
        assertThat(c.allowance()).as("never beyond the largest message").isEqualTo(16 * MIB);
    }

    @Test
    void authenticatedAndDialledPeersCommitAMessageInFull() {
        ReceiveBudget listener = ReceiveBudget.forListener(SecuritySettings.defaults(), counters);
        assertThat(connection(listener, true).commitAhead(16 * MIB)).isTrue();
        ReceiveBudget dialled = ReceiveBudget.dialled(SecuritySettings.defaults(), counters);
        ReceiveBudget.Connection d = connection(dialled, false);
        assertThat(d.commitAhead(16 * MIB)).isTrue();
        d.frameDone();
        assertThat(gauge).as("a dialled budget counts nothing").hasValue(16 * MIB);
    }

    @Test
    void theListenerTotalBoundsAllConnectionsTogether() {
        ReceiveBudget listener = ReceiveBudget.forListener(SecuritySettings.defaults().listenerMemory(40 * MIB),
                counters);
        ReceiveBudget.Connection a = connection(listener, true);
        ReceiveBudget.Connection b = connection(listener, true);
        ReceiveBudget.Connection c = connection(listener, true);
        assertThat(a.commitAhead(16 * MIB)).isTrue();
        assertThat(b.commitAhead(16 * MIB)).isTrue();
        assertThat(c.commitAhead(16 * MIB)).as("48 MiB > 40 MiB").isFalse();
        a.frameDone();
        assertThat(c.commitAhead(16 * MIB)).isTrue();
        assertThat(listener.committed()).isEqualTo(32 * MIB);
    }
}
