package dev.rivulet.faults;

import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * No fault at all, only a slow link: a 16 MiB put over a {@link LinkCutTest#RATE} token bucket takes several
 * seconds, longer than the 1 s peer timeout and the 2 s write timeout of
 * {@link NamespaceScenario#SHORT_LIVENESS}. The peer is healthy and takes every byte as fast as the link allows, so
 * the put must complete: liveness may end a connection whose peer is silent or stopped reading, never one that is
 * merely busy. This is the control for {@link LinkCutTest}'s long cut, whose failure must come from the cut.
 */
class SlowLinkTest extends NamespaceScenario {

    @ParameterizedTest(name = "{0}")
    @EnumSource(FaultTransport.class)
    @Timeout(120)
    void aSlowButSteadyPutOutlastingThePeerAndWriteTimeoutsCompletes(FaultTransport transport, TestInfo info)
            throws Exception {
        FaultSession s = start(transport, "verify", SHORT_LIVENESS, info);
        String handle = s.connect();
        net.client().shaper().limit(LinkCutTest.RATE);
        s.client().send("PUT handle=" + handle + " size=" + LinkCutTest.PUT_SIZE + " timeout=30000");
        Line put = s.client().await("PUT", l -> l.fields().containsKey("end"), Duration.ofSeconds(40));
        net.client().shaper().clear();
        assertThat(put.get("end")).as("%s", put).isEqualTo("OK");
        assertThat(s.serverChecksum(0, put.getLong("size"))).isEqualTo(put.get("crc"));
        s.closeClient();
        s.assertBothRecovered();
        FaultReport.record(String.format("slow link %s: %s put at %s with peer timeout 1 s, write timeout 2 s: "
                + "done in %d ms", transport, FaultReport.mb(put.getLong("size")), LinkCutTest.RATE,
                put.getLong("ms")));
    }
}
