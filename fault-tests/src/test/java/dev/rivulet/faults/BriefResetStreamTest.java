package dev.rivulet.faults;

import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A message stream under brief TCP resets: {@code reject with tcp reset} on the server's incoming TCP, lifted as soon
 * as it has answered a segment, every 300–500 ms while the stream runs. A reset that brief may end one of a
 * transport's TCP connections and spare another (libfabric's data connection and its bootstrap channel, which carries
 * the heartbeats), or end none. Whatever it does, the stream must either arrive intact (every message once, in order,
 * CRC right) or end with {@code ConnectionLostException} soon after the last reset: never stay silent. A second
 * scenario makes the case that once stalled libfabric's tcp every time (a lost credit) with one narrower reset.
 *
 * <p>Each round is a fresh connection between the same two processes; {@code -Drivulet.faults.resetRounds=N} runs
 * N rounds per transport (3 by default, about as long as one other scenario).
 */
class BriefResetStreamTest extends NamespaceScenario {

    private static final int ROUNDS = Integer.getInteger("rivulet.faults.resetRounds", 3);
    /** About two seconds of stream on a busy machine, so that several resets land while it runs. */
    private static final long MESSAGES = 200_000;
    /** Resets stop this long after a round started, so every round has a last reset to measure from. */
    private static final long RESETS_FOR_MS = 3_000;
    /**
     * How long after the last reset the stream must have ended when it did not complete: what the client's
     * liveness allows ({@link #SHORT_LIVENESS}: peer timeout 1 s, write timeout 2 s), plus the usual slack.
     */
    private static final long END_BOUND_MS = 2_000 + DETECTION_SLACK_MS;
    /** The client's own guard: a stream still silent by then is reported as TIMEOUT. */
    private static final long GUARD_MS = 60_000;
    /**
     * A stream that has not ended by then is silent, far beyond the bound (its messages take a few seconds on a busy
     * machine): both sides' sockets are recorded while it still is, then the round fails.
     */
    private static final Duration SILENT_AFTER = Duration.ofSeconds(30);
    /** An IPv4 TCP segment with no data: 20 bytes of IP header, 20 of TCP and up to 24 of options (timestamps). */
    private static final int NO_DATA_MAX_LENGTH = 64;

    @ParameterizedTest(name = "{0}")
    @EnumSource(FaultTransport.class)
    @Timeout(600)
    void aStreamUnderBriefResetsEndsIntactOrWithConnectionLostNeverSilently(FaultTransport transport, TestInfo info)
            throws Exception {
        Firewall firewall = net.server().firewall();
        rounds(transport, info, "brief resets", SHORT_LIVENESS, firewall, firewall::resetTcp, Integer.MAX_VALUE);
    }

    /**
     * One brief reset of the segments without data that reach the client: the server's acknowledgements (its
     * heartbeats carry data, and a verifying server sends nothing else but credits). It ends the server's data
     * connection while the server has only credits on the way, and with a receive depth of 4 the client is waiting
     * for them most of the time: the credits then fail with the connection, and unless that ends the connection, the
     * client waits for them for ever while the bootstrap channel keeps both sides' liveness content.
     */
    @ParameterizedTest(name = "{0}")
    @EnumSource(FaultTransport.class)
    @Timeout(600)
    void aResetEndingTheConnectionOfAServerWithOnlyCreditsOnTheWayEndsTheStreamNeverSilently(
            FaultTransport transport, TestInfo info) throws Exception {
        List<String> options = new ArrayList<>(SHORT_LIVENESS);
        options.add("receiveQueueDepth=4");
        Namespace client = net.client();
        rounds(transport, info, "a reset of the server's acknowledgements", options, client.firewall(),
                () -> resetSegmentsWithoutData(client), 1);
    }

    private void rounds(FaultTransport transport, TestInfo info, String fault, List<String> options,
                        Firewall firewall, Runnable ruleOn, int maxResets) throws Exception {
        FaultSession s = start(transport, "verify", options, info);
        List<String> outcomes = new ArrayList<>();
        for (int round = 1; round <= ROUNDS; round++) {
            outcomes.add(round(s, transport, round, new Resetter(firewall, ruleOn, maxResets)));
        }
        s.assertBothRecovered();
        FaultReport.record(String.format("%s %s, %d rounds: %s", fault, transport, ROUNDS,
                String.join("; ", outcomes)));
    }

    /** {@code reject with tcp reset} for every TCP segment without data arriving at {@code ns}. */
    private static void resetSegmentsWithoutData(Namespace ns) {
        HostCommand.run(ns.exec("nft", "add", "rule", "inet", Firewall.TABLE, "in", "iifname", ns.device(),
                "meta", "l4proto", "tcp", "ip", "length", "<=", Integer.toString(NO_DATA_MAX_LENGTH), "counter",
                "reject", "with", "tcp", "reset").toArray(String[]::new));
    }

    /** One connection, one stream under resets; returns what happened, for the report. */
    private String round(FaultSession s, FaultTransport transport, int round, Resetter resetter) throws Exception {
        s.connect();
        s.client().send("STREAM n=" + MESSAGES + " echo=false timeout=" + GUARD_MS);
        Thread resets = new Thread(resetter, "rvf-brief-resets");
        resets.start();
        Line stream;
        try {
            stream = s.client().await("STREAM", SILENT_AFTER);
        } catch (AssertionError silent) {
            diagnose(s, transport, round, silent.getMessage());
            throw silent;
        } finally {
            resetter.stop = true;
            resets.join();
            resetter.firewall.clear();
        }
        long afterLastReset = stream.getLong("at") - resetter.lastLifted.get();
        String end = stream.get("end");
        String outcome = String.format("#%d %s after %d resets (%d ms after the last)", round, end,
                resetter.resets.get(), afterLastReset);
        assertThat(end).as("round %d on %s: how the stream ended: %s (server log %s)", round, transport, stream,
                s.server().log()).isIn("OK", "ConnectionLostException");
        if (end.equals("OK")) {
            s.closeClient();
            Line received = s.awaitServer("RECEIVED", FaultSession.STEP);
            assertThat(received.getLong("count")).as("round %d: messages the server took: %s", round, received)
                    .isEqualTo(MESSAGES);
            assertThat(received.getLong("bad")).as("round %d: %s", round, received).isZero();
        } else {
            assertThat(afterLastReset).as("round %d: ms from the last reset to the stream's end: %s", round,
                    stream).isLessThanOrEqualTo(END_BOUND_MS);
            // whatever arrived before the loss arrived in order, once, intact
            Line received = s.awaitServer("RECEIVED", FaultSession.STEP);
            assertThat(received.getLong("bad")).as("round %d: %s", round, received).isZero();
            s.awaitServer("ENDED", FaultSession.STEP);
        }
        return outcome;
    }

    /** Both sides' TCP sockets while a stream stays silent (which of its connections still exist), in the report. */
    private void diagnose(FaultSession s, FaultTransport transport, int round, String what) {
        StringBuilder b = new StringBuilder("silent stream, round " + round + " on " + transport + ": " + what);
        for (Namespace ns : List.of(net.client(), net.server())) {
            b.append("\n--- ss -tanpoi in ").append(ns.name()).append('\n');
            b.append(HostCommand.attempt("", ns.exec("ss", "-tanpoi").toArray(String[]::new)).output());
        }
        b.append("\nclient log ").append(s.client().log()).append(", server log ").append(s.server().log());
        FaultReport.record(b.toString());
    }

    /**
     * Brief resets ({@code ruleOn}, lifted by clearing {@code firewall}), 300–500 ms apart, until stopped, or
     * {@link #RESETS_FOR_MS} have passed, or {@code maxResets} were made.
     */
    private static final class Resetter implements Runnable {
        private final Firewall firewall;
        private final Runnable ruleOn;
        private final int maxResets;
        private final AtomicInteger resets = new AtomicInteger();
        private final AtomicLong lastLifted = new AtomicLong(PeerConsole.now());
        private volatile boolean stop;

        Resetter(Firewall firewall, Runnable ruleOn, int maxResets) {
            this.firewall = firewall;
            this.ruleOn = ruleOn;
            this.maxResets = maxResets;
        }

        @Override
        public void run() {
            long until = System.nanoTime() + RESETS_FOR_MS * 1_000_000;
            try {
                while (!stop && System.nanoTime() < until && resets.get() < maxResets) {
                    Thread.sleep(ThreadLocalRandom.current().nextLong(300, 501));
                    if (stop) {
                        return;
                    }
                    ruleOn.run();
                    try {
                        // lifted as soon as it answered one segment (or after a second of nothing to answer)
                        long giveUp = System.nanoTime() + 1_000_000_000L;
                        while (firewall.hits() == 0 && System.nanoTime() < giveUp) {
                            Thread.onSpinWait();
                        }
                    } finally {
                        firewall.clear();
                        lastLifted.set(PeerConsole.now());
                    }
                    resets.incrementAndGet();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
