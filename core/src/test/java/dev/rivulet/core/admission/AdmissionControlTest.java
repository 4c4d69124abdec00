package dev.rivulet.core.admission;

import dev.rivulet.core.security.SecuritySettings;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class AdmissionControlTest {

    /** A connection's eviction action that only records it happened. */
    private static final class Evictions {
        final List<String> evicted = new ArrayList<>();

        Runnable of(String name) {
            return () -> evicted.add(name);
        }
    }

    @Test
    void connectionsBeyondTheListenerBoundAreRefused() {
        AdmissionControl a = new AdmissionControl(SecuritySettings.defaults().maxConnections(3).maxHandshakes(2));
        Evictions ev = new Evictions();
        AdmissionControl.Ticket t1 = a.admit("a", ev.of("1"));
        AdmissionControl.Ticket t2 = a.admit("b", ev.of("2"));
        assertThat(t1.established()).isTrue();
        assertThat(t2.established()).isTrue();
        AdmissionControl.Ticket t3 = a.admit("c", ev.of("3"));
        assertThat(t3).isNotNull();
        assertThat(a.admit("d", ev.of("4"))).as("three connections at most").isNull();
        assertThat(a.refused()).isEqualTo(1);
        t2.close();
        t2.close();
        assertThat(a.connections()).isEqualTo(2);
        assertThat(a.admit("d", ev.of("4"))).isNotNull();
        assertThat(ev.evicted).isEmpty();
    }

    @Test
    void aNewcomerBeyondTheSetUpBoundTakesTheSlotOfTheOldestUnfinishedSetUp() {
        AdmissionControl a = new AdmissionControl(SecuritySettings.defaults().maxHandshakes(2));
        Evictions ev = new Evictions();
        AdmissionControl.Ticket silent1 = a.admit("x", ev.of("silent1"));
        AdmissionControl.Ticket silent2 = a.admit("y", ev.of("silent2"));
        AdmissionControl.Ticket newcomer = a.admit("z", ev.of("newcomer"));
        assertThat(newcomer).isNotNull();
        assertThat(ev.evicted).containsExactly("silent1");
        assertThat(a.handshakes()).isEqualTo(2);
        assertThat(a.connections()).isEqualTo(2);
        assertThat(a.evicted()).isEqualTo(1);
        // The evicted set-up finishing later does not get its slot back; closing it changes nothing.
        assertThat(silent1.established()).isFalse();
        silent1.close();
        assertThat(a.connections()).isEqualTo(2);
        assertThat(newcomer.established()).isTrue();
        assertThat(silent2.established()).isTrue();
        assertThat(a.handshakes()).isZero();
    }

    @Test
    void oneSourceEvictsItsOwnOldestSetUpFirstAndCannotTakeEverySlot() {
        AdmissionControl a = new AdmissionControl(SecuritySettings.defaults().maxHandshakes(8)
                .maxHandshakesPerSource(3));
        Evictions ev = new Evictions();
        AdmissionControl.Ticket legit = a.admit("legit", ev.of("legit"));
        for (int i = 0; i < 1000; i++) {
            assertThat(a.admit("attacker", ev.of("a" + i))).isNotNull();
        }
        assertThat(ev.evicted).hasSize(997).doesNotContain("legit");
        assertThat(a.handshakes()).isEqualTo(4);
        assertThat(a.connections("attacker")).isEqualTo(3);
        assertThat(legit.established()).as("the other source's set-up was never touched").isTrue();
    }

    @Test
    void connectionsPerSourceAreBoundedAndEachSourceCountedApart() {
        AdmissionControl a = new AdmissionControl(SecuritySettings.defaults().maxConnectionsPerSource(2));
        Evictions ev = new Evictions();
        AdmissionControl.Ticket a1 = a.admit("a", ev.of("a1"));
        a.admit("a", ev.of("a2")).established();
        a1.established();
        assertThat(a.admit("a", ev.of("a3"))).isNull();
        assertThat(a.admit("b", ev.of("b1"))).isNotNull();
        a1.close();
        assertThat(a.admit("a", ev.of("a4"))).isNotNull();
        assertThat(a.refused()).isEqualTo(1);
    }

    @Test
    void countersSeeRefusalsAndEvictions() {
        List<String> seen = new ArrayList<>();
        AdmissionControl a = new AdmissionControl(SecuritySettings.defaults().maxHandshakes(1)
                .maxConnectionsPerSource(1), new AdmissionControl.Counters() {
                    @Override
                    public void refused(AdmissionControl.Bound bound) {
                        seen.add("refused: " + bound);
                    }

                    @Override
                    public void evicted() {
                        seen.add("evicted");
                    }
                }, null, 0);
        a.admit("a", () -> { });
        a.admit("a", () -> { });
        a.admit("b", () -> { });
        assertThat(seen).containsExactly("refused: SOURCE", "evicted");
    }

    @Test
    void whereNobodyAuthenticatesEachConnectionHoldsItsBuffersFromTheListenersMemory() {
        SecuritySettings s = SecuritySettings.defaults().listenerMemory(1 << 20);
        ReceiveBudget budget = ReceiveBudget.forListener(s, ReceiveBudget.Counters.NONE);
        AdmissionControl a = new AdmissionControl(s, AdmissionControl.Counters.NONE, budget, 300 << 10);
        AdmissionControl.Ticket t1 = a.admit("a", () -> { });
        a.admit("b", () -> { });
        a.admit("c", () -> { });
        assertThat(a.admit("d", () -> { })).as("a fourth 300 KiB would exceed 1 MiB").isNull();
        assertThat(budget.committed()).isEqualTo(900 << 10);
        t1.close();
        assertThat(budget.committed()).isEqualTo(600 << 10);
        assertThat(a.admit("d", () -> { })).isNotNull();

        SecuritySettings secret = s.secret("sixteen bytes or more".getBytes());
        AdmissionControl authenticated = new AdmissionControl(secret, AdmissionControl.Counters.NONE,
                ReceiveBudget.forListener(secret, ReceiveBudget.Counters.NONE), 300 << 10);
        for (int i = 0; i < 10; i++) {
            assertThat(authenticated.admit("x" + i, () -> { })).as("peers that prove the secret hold nothing")
                    .isNotNull();
        }
    }

    @Test
    void sourcesAreIpv4AddressesAndIpv6Prefixes() throws Exception {
        assertThat(AdmissionControl.sourceOf(InetAddress.getByName("2001:db8:1:2::1")))
                .isEqualTo(AdmissionControl.sourceOf(InetAddress.getByName("2001:db8:1:2:ffff::9")))
                .isNotEqualTo(AdmissionControl.sourceOf(InetAddress.getByName("2001:db8:1:3::1")));
        assertThat(AdmissionControl.sourceOf(InetAddress.getByName("10.0.0.1")))
                .isNotEqualTo(AdmissionControl.sourceOf(InetAddress.getByName("10.0.0.2")))
                .isEqualTo(AdmissionControl.sourceOf(InetAddress.getByAddress(new byte[] {0, 0, 0, 0, 0, 0, 0, 0,
                        0, 0, (byte) 0xFF, (byte) 0xFF, 10, 0, 0, 1})));
    }
}
