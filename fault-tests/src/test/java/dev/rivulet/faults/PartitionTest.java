package dev.rivulet.faults;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.List;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario 3: the server's namespace is cut off (everything in and out of its veth dropped) for
 * {@link #PARTITION_MS}, then healed.
 *
 * <ul>
 *   <li>With a peer timeout longer than the partition, a message stream and RMA rounds that were in flight when it
 *       began complete after it heals, with every message and every byte intact.</li>
 *   <li>With a peer timeout shorter than it ({@link NamespaceScenario#SHORT_LIVENESS}), every pending operation on
 *       the client and the server's receive stream end with {@code ConnectionLostException} within the peer
 *       timeout plus {@link NamespaceScenario#DETECTION_SLACK_MS} (and not before the peer timeout less a heartbeat
 *       interval: the partition, not something else, ended them); an operation issued afterwards fails the same way
 *       and the endpoint is closed. Tag {@code liveness}.</li>
 * </ul>
 */
class PartitionTest extends NamespaceScenario {

    static final long PARTITION_MS = 2_000;
    static final long STREAM_MESSAGES = 300_000;
    static final long RMA_BYTES = 32L << 20;
    /** A peer timeout well beyond the partition, with heartbeats often enough to matter. */
    static final List<String> LONG_LIVENESS = List.of("liveness.heartbeatInterval=1s", "liveness.peerTimeout=10s",
            "liveness.writeTimeout=10s");

    @ParameterizedTest(name = "{0}")
    @EnumSource(FaultTransport.class)
    @Timeout(120)
    void operationsInFlightCompleteWhenAPartitionShorterThanThePeerTimeoutHeals(FaultTransport transport,
                                                                                TestInfo info) throws Exception {
        FaultSession s = start(transport, "verify", LONG_LIVENESS, info);
        String handle = s.connect();
        // the partition lands once both are under way: the stream has queued a tenth, the RMA finished a round
        s.client().send("STREAM n=" + STREAM_MESSAGES + " timeout=60000");
        s.client().await("PROGRESS", l -> l.get("op").equals("stream"), FaultSession.STEP);
        s.client().send("RMA handle=" + handle + " bytes=" + RMA_BYTES + " timeout=60000");
        s.client().await("PROGRESS", l -> l.get("op").equals("rma"), FaultSession.STEP);

        net.server().firewall().dropEverything();
        Thread.sleep(PARTITION_MS);
        long dropped = net.server().firewall().hits();
        net.server().firewall().clear();
        long healedAt = PeerConsole.now();

        Line stream = s.client().await("STREAM", Duration.ofSeconds(60));
        Line rma = s.client().await("RMA", Duration.ofSeconds(60));
        assertThat(dropped).as("packets the partition swallowed").isPositive();
        assertThat(stream.get("end")).as("stream: %s", stream).isEqualTo("OK");
        assertThat(rma.get("end")).as("rma: %s", rma).isEqualTo("OK");
        assertThat(stream.getLong("at")).as("the stream was still in flight during the partition")
                .isGreaterThan(healedAt);
        assertThat(rma.getLong("at")).as("the RMA rounds were still in flight during the partition")
                .isGreaterThan(healedAt);
        assertThat(rma.get("mismatches")).as("rma read-back mismatches: %s", rma).isEqualTo("0");
        assertThat(s.serverChecksum(0, rma.getLong("span"))).isEqualTo(rma.get("crc"));
        s.closeClient();
        Line received = s.awaitServer("RECEIVED", FaultSession.STEP);
        assertThat(received.get("bad")).as("%s", received).isEqualTo("0");
        assertThat(received.getLong("count")).isEqualTo(STREAM_MESSAGES);
        s.assertBothRecovered();

        FaultReport.record(String.format("partition %s, %d ms, peer timeout 10 s: %,d packets dropped; stream done "
                        + "%d ms and rma done %d ms after healing", transport, PARTITION_MS, dropped,
                stream.getLong("at") - healedAt, rma.getLong("at") - healedAt));
    }

    @Tag("liveness")
    @ParameterizedTest(name = "{0}")
    @EnumSource(FaultTransport.class)
    @Timeout(120)
    void everyPendingOperationEndsWithConnectionLostWhenAPartitionOutlastsThePeerTimeout(FaultTransport transport,
                                                                                       TestInfo info)
            throws Exception {
        partitionOutlastingThePeerTimeout(transport, info);
    }

    /**
     * The same partition again and again, for what happens only now and then (a provider crashing as an endpoint
     * closes after the peer timeout, a close that races a completion): {@code -Drivulet.faults.soak=200} runs it 200
     * times per transport in one test run, each a fresh pair of processes ({@code -Drivulet.faults.soak.transport=
     * LIBFABRIC_TCP} for one transport; {@code -Dfaults.forkTimeout=0} lifts the suite's time limit); skipped
     * otherwise.
     */
    @Tag("soak")
    @ParameterizedTest(name = "{0} #{1}")
    @MethodSource("soakRuns")
    @EnabledIfSystemProperty(named = "rivulet.faults.soak", matches = "[0-9]+")
    @Timeout(120)
    void aPartitionOutlastingThePeerTimeoutAgainAndAgain(FaultTransport transport, int run, TestInfo info)
            throws Exception {
        partitionOutlastingThePeerTimeout(transport, info);
    }

    static Stream<Arguments> soakRuns() {
        int runs = Integer.getInteger("rivulet.faults.soak", 0);
        String only = System.getProperty("rivulet.faults.soak.transport", "");
        return Stream.of(FaultTransport.values()).filter(t -> only.isEmpty() || t.name().equals(only))
                .flatMap(t -> IntStream.rangeClosed(1, runs).mapToObj(i -> Arguments.of(t, i)));
    }

    private void partitionOutlastingThePeerTimeout(FaultTransport transport, TestInfo info) throws Exception {
        FaultSession s = start(transport, "echo", SHORT_LIVENESS, info);
        String handle = s.connect();
        int loops = startPendingLoops(s, handle, 15_000);

        long cutAt = PeerConsole.now();
        net.server().firewall().dropEverything();
        List<Line> ends = awaitLoopEnds(s, loops, Duration.ofSeconds(30));
        Line lost = s.client().await("LOST", Duration.ofSeconds(30));
        Line serverEnd = s.awaitServer("RECEIVED", Duration.ofSeconds(30));
        net.server().firewall().clear();

        assertThat(ends).as("how each pending operation ended").allSatisfy(end -> {
            assertThat(end.get("error")).as("%s", end).isEqualTo("ConnectionLostException");
            assertLivenessNoticed(end, cutAt, "a pending operation ending");
        });
        assertThat(lost.get("flushAfter")).as("an operation issued after the loss").isEqualTo(
                "ConnectionLostException");
        assertThat(lost.get("onClose")).as("the client endpoint closes").isEqualTo("OK");
        assertThat(serverEnd.get("end")).as("the server's receive stream: %s", serverEnd)
                .isEqualTo("ConnectionLostException");
        assertLivenessNoticed(serverEnd, cutAt, "the server noticing");
        s.awaitServer("ENDED", FaultSession.STEP);
        s.assertBothRecovered();

        FaultReport.record(String.format("partition %s, peer timeout 1 s: client loops ended %d..%d ms and the "
                        + "server %d ms after the cut", transport,
                ends.stream().mapToLong(e -> e.getLong("at") - cutAt).min().orElse(-1),
                ends.stream().mapToLong(e -> e.getLong("at") - cutAt).max().orElse(-1),
                serverEnd.getLong("at") - cutAt));
    }
}
