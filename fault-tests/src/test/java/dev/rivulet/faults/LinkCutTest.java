package dev.rivulet.faults;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario 4: the client's veth is set down ({@code ip link set down}) {@link #CUT_AFTER_MS} into a large put,
 * which a {@link #RATE} token bucket on that veth stretches over seconds.
 *
 * <ul>
 *   <li>An 8 MiB put, the link back up after {@link #SHORT_CUT_MS}, within a 10 s peer timeout: the put completes
 *       after the link returns and the server's window holds exactly the put's bytes.</li>
 *   <li>A 16 MiB put, the link down for {@link #LONG_CUT_MS}, past a 1 s peer timeout: the put fails with
 *       {@code ConnectionLostException} and the server's endpoint ends, both between the peer timeout less a
 *       heartbeat interval and the peer timeout plus slack after the cut. Tag {@code liveness}.</li>
 * </ul>
 * Neither may hang: the client reports TIMEOUT after a guard instead.
 */
class LinkCutTest extends NamespaceScenario {

    static final String RATE = "40mbit";
    static final long PUT_SIZE = 16L << 20;
    static final long SHORT_CUT_PUT_SIZE = 8L << 20;
    static final long CUT_AFTER_MS = 500;
    static final long SHORT_CUT_MS = 1_500;
    static final long LONG_CUT_MS = 4_000;
    /** Timeouts well beyond the cut and the whole put, so only the cut is tested (see {@link SlowLinkTest}). */
    static final List<String> CUT_TOLERANT_LIVENESS = List.of("liveness.heartbeatInterval=1s",
            "liveness.peerTimeout=10s", "liveness.writeTimeout=10s");

    @ParameterizedTest(name = "{0}")
    @EnumSource(FaultTransport.class)
    @Timeout(120)
    void aLargePutCompletesWhenTheLinkComesBackWithinThePeerTimeout(FaultTransport transport, TestInfo info)
            throws Exception {
        FaultSession s = start(transport, "verify", CUT_TOLERANT_LIVENESS, info);
        String handle = s.connect();
        net.client().shaper().limit(RATE);
        s.client().send("PUT handle=" + handle + " size=" + SHORT_CUT_PUT_SIZE + " timeout=60000");
        s.client().await("PUT", l -> l.fields().containsKey("started"), FaultSession.STEP);
        Thread.sleep(CUT_AFTER_MS);
        long cutAt = PeerConsole.now();
        net.client().linkDown();
        Thread.sleep(SHORT_CUT_MS);
        net.client().linkUp();
        long upAt = PeerConsole.now();

        Line put = s.client().await("PUT", l -> l.fields().containsKey("end"), Duration.ofSeconds(70));
        net.client().shaper().clear();
        assertThat(put.get("end")).as("%s", put).isEqualTo("OK");
        assertThat(put.getLong("at")).as("the put was still in flight when the link went down")
                .isGreaterThan(upAt);
        assertThat(s.serverChecksum(0, put.getLong("size"))).as("the server's window holds the put's bytes")
                .isEqualTo(put.get("crc"));
        s.closeClient();
        s.assertBothRecovered();

        FaultReport.record(String.format("link cut %s: %s put at %s with the link down %d ms from %d ms in: done "
                        + "in %d ms, %d ms after the link came back", transport, FaultReport.mb(put.getLong("size")),
                RATE, upAt - cutAt, CUT_AFTER_MS, put.getLong("ms"), put.getLong("at") - upAt));
    }

    @Tag("liveness")
    @ParameterizedTest(name = "{0}")
    @EnumSource(FaultTransport.class)
    @Timeout(120)
    void aLargePutFailsWithConnectionLostWhenTheLinkStaysDownPastThePeerTimeout(FaultTransport transport,
                                                                               TestInfo info) throws Exception {
        FaultSession s = start(transport, "verify", SHORT_LIVENESS, info);
        String handle = s.connect();
        net.client().shaper().limit(RATE);
        s.client().send("PUT handle=" + handle + " size=" + PUT_SIZE + " timeout=20000");
        s.client().await("PUT", l -> l.fields().containsKey("started"), FaultSession.STEP);
        Thread.sleep(CUT_AFTER_MS);
        long cutAt = PeerConsole.now();
        net.client().linkDown();
        Line put;
        try {
            put = s.client().await("PUT", l -> l.fields().containsKey("end"), Duration.ofSeconds(30));
        } finally {
            long downFor = PeerConsole.now() - cutAt;
            if (downFor < LONG_CUT_MS) {
                Thread.sleep(LONG_CUT_MS - downFor);
            }
            net.client().linkUp();
            net.client().shaper().clear();
        }
        Line serverEnd = s.awaitServer("ENDED", Duration.ofSeconds(30));

        assertThat(put.get("end")).as("%s", put).isEqualTo("ConnectionLostException");
        assertLivenessNoticed(put, cutAt, "the put failing");
        assertLivenessNoticed(serverEnd, cutAt, "the server's endpoint ending");
        s.assertBothRecovered();

        FaultReport.record(String.format("link cut %s, peer timeout 1 s, link down %d ms: put failed %d ms and the "
                + "server's endpoint ended %d ms after the cut", transport, LONG_CUT_MS, put.getLong("at") - cutAt,
                serverEnd.getLong("at") - cutAt));
    }
}
