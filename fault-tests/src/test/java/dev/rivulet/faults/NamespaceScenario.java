package dev.rivulet.faults;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The life cycle every fault scenario class shares: the host is checked (a host that cannot make namespaces skips
 * the class with the reason), stale namespaces of killed runs are swept, one {@link NamespacePair} serves the class
 * and is deleted after it whatever happened; each test gets a fresh {@link FaultSession}, and every fault is removed
 * after each test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class NamespaceScenario {

    /** Extra time allowed, on top of a configured timeout, for an outcome to be noticed and reported. */
    static final long DETECTION_SLACK_MS = 2_000;

    /** Liveness settings that notice a silent peer in about a second. */
    static final List<String> SHORT_LIVENESS = List.of("liveness.heartbeatInterval=300ms",
            "liveness.peerTimeout=1s", "liveness.writeTimeout=2s");
    static final long SHORT_PEER_TIMEOUT_MS = 1_000;
    static final long SHORT_HEARTBEAT_MS = 300;
    /**
     * With {@link #SHORT_LIVENESS} a healthy connection hears something at least every heartbeat interval, so the
     * silence that ends it began at most that long before the fault, plus this margin (a round trip, progress-loop
     * ticks, a loaded machine's scheduling): noticing sooner than the peer timeout less both means it was not the
     * fault that ended the connection.
     */
    static final long EARLY_MARGIN_MS = 200;
    /** Expected drops from which a side's drop count is checked against the rate (see {@link #assertLossApplied}). */
    static final double LOSS_CHECKED_FROM = 50;

    NamespacePair net;
    private FaultSession session;
    private Thread cleanup;
    private long testStarted;

    @BeforeAll
    void createNetwork() {
        Optional<String> missing = FaultHost.missing();
        // a class-level skip shows no reason in the build summary: say it where CI logs show it
        missing.ifPresent(reason -> System.out.println("[faults] " + getClass().getSimpleName() + " skipped: "
                + reason));
        assumeTrue(missing.isEmpty(), () -> "fault scenarios skipped: " + missing.orElse(""));
        FaultHost.sweepStaleNamespaces();
        net = NamespacePair.create();
        // a JVM ended by a signal skips @AfterAll: leave no namespace behind in that case either
        NamespacePair pair = net;
        cleanup = new Thread(pair::close, "rvf-namespace-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
    }

    @AfterAll
    void removeNetwork() {
        if (net != null) {
            net.close();
            Runtime.getRuntime().removeShutdownHook(cleanup);
        }
    }

    @BeforeEach
    void startClock() {
        testStarted = System.nanoTime();
    }

    @AfterEach
    void endSession(TestInfo info) {
        if (session != null) {
            FaultReport.record(String.format("%s %s: %d ms (child JVMs, warm-up and checks included)",
                    getClass().getSimpleName(), info.getDisplayName(), (System.nanoTime() - testStarted) / 1_000_000));
        }
        try {
            if (net != null) {
                net.heal();
            }
        } finally {
            if (session != null) {
                session.close();
                session = null;
            }
        }
    }

    /**
     * Starts every kind of operation on the client in loops ({@code PENDING}) and waits until each has completed
     * one, so a fault that lands next finds them all busy; returns how many loops run.
     */
    static int startPendingLoops(FaultSession s, String handle, long guardMillis) {
        s.client().send("PENDING handle=" + handle + " timeout=" + guardMillis);
        int loops = (int) s.client().await("PENDING", l -> l.fields().containsKey("loops"), FaultSession.STEP)
                .getLong("loops");
        Line running = s.client().await("PENDING", l -> l.fields().containsKey("running"), FaultSession.STEP);
        assertThat(running.get("running"))
                .as("every loop completed an operation before the fault").isEqualTo("true");
        return loops;
    }

    /** The END line of each of {@code loops} loops, in the order they ended. */
    static List<Line> awaitLoopEnds(FaultSession s, int loops, Duration timeout) {
        List<Line> ends = new ArrayList<>();
        for (int i = 0; i < loops; i++) {
            ends.add(s.client().await("END", timeout));
        }
        return ends;
    }

    /**
     * Checks that {@code line} (with an {@code at} field) came between the earliest and the latest moment
     * {@link #SHORT_LIVENESS} can notice a fault made at {@code faultAt}.
     */
    static void assertLivenessNoticed(Line line, long faultAt, String what) {
        long after = line.getLong("at") - faultAt;
        assertThat(after).as("ms from the fault to %s: %s", what, line)
                .isBetween(SHORT_PEER_TIMEOUT_MS - SHORT_HEARTBEAT_MS - EARLY_MARGIN_MS,
                        SHORT_PEER_TIMEOUT_MS + DETECTION_SLACK_MS);
    }

    /**
     * Checks that random loss of {@code percent} really took packets on each side: its counting rule saw packets
     * arrive (so the rules match the veth), and its drop rule took about that share of them. Each packet is dropped
     * independently, so the drops are binomial with a standard deviation under the square root of the expected
     * count; from {@link #LOSS_CHECKED_FROM} expected drops on, half or twice the expected count is more than 3.5
     * deviations away (and a rate typed wrong by a factor of ten fails). Below that only some drop is required.
     * Returns both sides together, for the report.
     */
    static Firewall.Loss assertLossApplied(double percent, Firewall.Loss client, Firewall.Loss server) {
        Firewall.Loss both = client.plus(server);
        for (Firewall.Loss side : List.of(client, server)) {
            assertThat(side.arrived()).as("packets that arrived at a side under loss: %s", side).isPositive();
            assertDropRate(percent, side, "one side");
        }
        assertThat(both.dropped()).as("packets the loss rules dropped: %s", both).isPositive();
        assertDropRate(percent, both, "both sides"); // the same rate, so the sum counts too
        return both;
    }

    private static void assertDropRate(double percent, Firewall.Loss loss, String where) {
        double expected = loss.arrived() * percent / 100;
        if (expected >= LOSS_CHECKED_FROM) {
            assertThat((double) loss.dropped()).as("packets dropped at %s%% of those that arrived at %s: %s",
                    percent, where, loss).isBetween(expected / 2, expected * 2);
        }
    }

    /** A fresh pair of child JVMs for {@code transport}; skips when the transport cannot run here. */
    FaultSession start(FaultTransport transport, String mode, List<String> options, TestInfo info) {
        Optional<String> unavailable = transport.unavailable();
        assumeTrue(unavailable.isEmpty(), () -> unavailable.orElse(""));
        String logName = (getClass().getSimpleName() + "-" + info.getTestMethod().map(m -> m.getName()).orElse("")
                + "-" + info.getDisplayName()).replaceAll("[^A-Za-z0-9.-]+", "_");
        session = FaultSession.start(net, transport, mode, options, logName);
        return session;
    }
}
