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
 * Scenario 5: the server JVM dies or freezes while the client keeps every kind of operation pending (a message
 * stream echoed back, the receive stream, puts, gets, fetch-adds where offered, flushes).
 *
 * <ul>
 *   <li>SIGKILL: the kernel closes the dead process's sockets, so every pending operation ends with
 *       {@code ConnectionLostException} within {@link #KILL_DETECTION_MS}; no liveness needed.</li>
 *   <li>A middlebox answering every TCP segment to the server with a reset ({@code reject with tcp reset}): the
 *       same on the client; the server, whose own segments meet resets the rule swallows, notices through its
 *       1 s peer timeout ({@link NamespaceScenario#SHORT_LIVENESS}).</li>
 *   <li>SIGSTOP with a 1 s peer timeout: a stopped process's kernel still acknowledges data, so only missing
 *       heartbeat answers reveal it; every pending operation ends with {@code ConnectionLostException} within the
 *       peer timeout plus slack; after SIGCONT the server notices its connection is gone and returns to its
 *       baseline. Tag {@code liveness}.</li>
 * </ul>
 * The client (and the continued server) must be back at their baseline afterwards; no file in /dev/shm may carry
 * the killed process's pid.
 */
class PeerDeathTest extends NamespaceScenario {

    static final long KILL_DETECTION_MS = 5_000;

    @ParameterizedTest(name = "{0}")
    @EnumSource(FaultTransport.class)
    @Timeout(120)
    void aKilledPeerEndsEveryPendingOperationWithConnectionLost(FaultTransport transport, TestInfo info)
            throws Exception {
        FaultSession s = start(transport, "echo", List.of(), info);
        String handle = s.connect();
        int loops = startPendingLoops(s, handle, 20_000);

        long killedAt = PeerConsole.now();
        s.server().signal("KILL");
        List<Line> ends = awaitLoopEnds(s, loops, Duration.ofSeconds(30));
        Line lost = s.client().await("LOST", Duration.ofSeconds(30));

        assertEveryLoopLost(transport, ends, killedAt, KILL_DETECTION_MS);
        assertThat(lost.get("flushAfter")).as("an operation issued after the loss").isEqualTo(
                "ConnectionLostException");
        assertThat(lost.get("onClose")).isEqualTo("OK");
        assertThat(s.server().awaitExit(Duration.ofSeconds(10))).as("the killed JVM is gone").isTrue();
        s.assertClientRecovered();
        report("SIGKILL", transport, ends, killedAt);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(FaultTransport.class)
    @Timeout(120)
    void tcpResetsMidStreamEndEveryPendingOperationWithConnectionLost(FaultTransport transport, TestInfo info)
            throws Exception {
        FaultSession s = start(transport, "echo", SHORT_LIVENESS, info);
        String handle = s.connect();
        int loops = startPendingLoops(s, handle, 20_000);

        long resetAt = PeerConsole.now();
        net.server().firewall().resetTcp();
        List<Line> ends = awaitLoopEnds(s, loops, Duration.ofSeconds(30));
        Line lost = s.client().await("LOST", Duration.ofSeconds(30));
        // the server's own segments are answered by resets the rule swallows: only its peer timeout tells it
        Line serverEnd = s.awaitServer("RECEIVED", Duration.ofSeconds(30));
        net.server().firewall().clear();

        assertEveryLoopLost(transport, ends, resetAt, KILL_DETECTION_MS);
        assertThat(lost.get("flushAfter")).isEqualTo("ConnectionLostException");
        assertThat(lost.get("onClose")).isEqualTo("OK");
        assertThat(serverEnd.get("end")).as("the server's receive stream: %s", serverEnd)
                .isEqualTo("ConnectionLostException");
        assertLivenessNoticed(serverEnd, resetAt, "the server noticing");
        s.awaitServer("ENDED", FaultSession.STEP);
        s.assertBothRecovered();
        report("TCP reset", transport, ends, resetAt);
    }

    @Tag("liveness")
    @ParameterizedTest(name = "{0}")
    @EnumSource(FaultTransport.class)
    @Timeout(120)
    void aStoppedPeerEndsEveryPendingOperationWithConnectionLostAfterThePeerTimeout(FaultTransport transport,
                                                                                  TestInfo info) throws Exception {
        FaultSession s = start(transport, "echo", SHORT_LIVENESS, info);
        String handle = s.connect();
        int loops = startPendingLoops(s, handle, 15_000);

        long stoppedAt = PeerConsole.now();
        s.server().signal("STOP");
        List<Line> ends;
        Line lost;
        try {
            ends = awaitLoopEnds(s, loops, Duration.ofSeconds(30));
            lost = s.client().await("LOST", Duration.ofSeconds(30));
        } finally {
            s.server().signal("CONT");
        }
        assertThat(ends).as("how each pending operation ended").allSatisfy(end -> {
            assertThat(end.get("error")).as("%s", end).isEqualTo("ConnectionLostException");
            assertLivenessNoticed(end, stoppedAt, "a pending operation ending");
        });
        assertThat(lost.get("flushAfter")).isEqualTo("ConnectionLostException");
        assertThat(lost.get("onClose")).isEqualTo("OK");
        s.awaitServer("ENDED", Duration.ofSeconds(30));
        s.assertBothRecovered();
        report("SIGSTOP (peer timeout 1 s)", transport, ends, stoppedAt);
    }

    private static void assertEveryLoopLost(FaultTransport transport, List<Line> ends, long faultAt, long boundMs) {
        assertThat(ends).as("how each pending operation ended on %s", transport).allSatisfy(end -> {
            assertThat(end.get("error")).as("%s", end).isEqualTo("ConnectionLostException");
            assertThat(end.getLong("at") - faultAt).as("ms from the fault to %s", end).isLessThanOrEqualTo(boundMs);
        });
    }

    private static void report(String fault, FaultTransport transport, List<Line> ends, long faultAt) {
        FaultReport.record(String.format("%s %s: %d pending loops (%s) ended with ConnectionLostException %d..%d "
                        + "ms after the fault", fault, transport, ends.size(),
                String.join(",", ends.stream().map(e -> e.get("op")).toList()),
                ends.stream().mapToLong(e -> e.getLong("at") - faultAt).min().orElse(-1),
                ends.stream().mapToLong(e -> e.getLong("at") - faultAt).max().orElse(-1)));
    }
}
