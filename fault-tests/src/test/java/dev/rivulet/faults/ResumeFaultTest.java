package dev.rivulet.faults;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Scenario 6: a resumable session ({@link ResumeClient}, {@link ResumePeer}) carries {@link #MESSAGES}
 * {@link StreamMessages} from the client namespace to the server namespace while the network breaks under it. The
 * liveness settings ({@link NamespaceScenario#SHORT_LIVENESS}: heartbeat 300 ms, peer timeout 1 s) make every fault
 * end the connection below the session; the session timeout ({@link #SESSION_TIMEOUT_MS}) outlasts the fault, so the
 * client connects again and the session resumes.
 *
 * <ul>
 *   <li>A partition (everything to and from the server's veth dropped) for {@link #FAULT_MS}, the client's link down
 *       for as long, or a TCP reset (nftables {@code reject with tcp reset} on the server's side, removed once the
 *       client's session has lost its connection) every {@link #RESET_EVERY_MS} until the stream ends: the session
 *       resumes after each (after the partition and the cut, whose silence only liveness can notice, its connection
 *       must have ended within the peer timeout), the stream completes, and the server's application took exactly
 *       the messages sent, each the next in sequence, of the right size, its CRC32C intact.</li>
 *   <li>Puts of {@link #PUT_CHUNK} filling an 8 MiB window the server exposed to the session, at {@link #PUT_RATE},
 *       with the client's link down for {@link #FAULT_MS} from {@link #CUT_PUTS_AFTER_MS} in: the puts whose answers
 *       were lost are issued again, every put completes, and the server's window holds exactly the bytes put.</li>
 *   <li>{@link #FETCH_ADDS} {@code fetchAdd(1)}s on a counter the server exposed to the session, with a TCP reset
 *       ({@link #COUNTER_RESETS} times, one after the other once a tenth is done): every call completes, each previous
 *       value from 0 up comes back once, and the counter ends exactly at their number (none lost, none applied
 *       twice, although calls whose answers were lost with a connection are issued again).</li>
 *   <li>The client's link down past the server's session timeout ({@link #SHORT_SESSION_TIMEOUT_MS}; the client's
 *       own is long): the server's session expires, and when the link is back the client's resume is refused, so its
 *       session ends with {@code SessionExpiredException}, as do its pending sends and its {@code receive()}.</li>
 * </ul>
 * Both sides must be back at their baseline afterwards. Each reports how many times the session resumed, how many
 * messages the client replayed, and how long after the network healed the session resumed.
 */
class ResumeFaultTest extends NamespaceScenario {

    static final long MESSAGES = 1_000_000;
    static final long FAULT_MS = 2_000;
    static final long RESET_EVERY_MS = 2_000;
    static final int FETCH_ADDS = 100_000;
    /** The puts scenario's rate limit: the 8 MiB of puts take about 1.7 s, so the cut lands among them. */
    static final String PUT_RATE = "40mbit";
    static final int PUT_CHUNK = 64 << 10;
    static final long CUT_PUTS_AFTER_MS = 500;
    static final int COUNTER_RESETS = 3;
    static final Duration RESET_NOTICED_WITHIN = Duration.ofSeconds(5);
    /** Longer than any fault here: only the session timeout scenario's expires. */
    static final long SESSION_TIMEOUT_MS = 30_000;
    static final long SHORT_SESSION_TIMEOUT_MS = 2_000;
    /** The expiry scenario keeps the link down until the server's session has expired, at most this long. */
    static final Duration EXPIRY_WAIT = Duration.ofSeconds(20);
    static final Duration STREAM_WAIT = Duration.ofSeconds(100);
    static final long STREAM_GUARD_MS = 90_000;
    static final Duration STEP = ResumeFaultSession.STEP;

    private ResumeFaultSession session;

    @AfterEach
    void closeSession() {
        if (session != null) {
            session.close();
            session = null;
        }
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(FaultTransport.class)
    @Timeout(150)
    void aStreamCompletesOnceInOrderWhenItsSessionResumesAfterAPartition(FaultTransport transport, TestInfo info)
            throws Exception {
        ResumeFaultSession s = start(transport, SESSION_TIMEOUT_MS, info);
        startStream(s);
        long faultAt = PeerConsole.now();
        net.server().firewall().dropEverything();
        Thread.sleep(FAULT_MS);
        long dropped = net.server().firewall().hits();
        long healedAt = PeerConsole.now(); // as the heal is issued: the session may resume before the command returns
        net.server().firewall().clear();

        assertThat(dropped).as("packets the partition swallowed").isPositive();
        streamResumedOnce("partition", transport, s, faultAt, healedAt);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(FaultTransport.class)
    @Timeout(150)
    void aStreamCompletesOnceInOrderWhenItsSessionResumesAfterALinkCut(FaultTransport transport, TestInfo info)
            throws Exception {
        ResumeFaultSession s = start(transport, SESSION_TIMEOUT_MS, info);
        startStream(s);
        long faultAt = PeerConsole.now();
        net.client().linkDown();
        Thread.sleep(FAULT_MS);
        long healedAt = PeerConsole.now();
        net.client().linkUp();

        streamResumedOnce("link cut", transport, s, faultAt, healedAt);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(FaultTransport.class)
    @Timeout(150)
    void aStreamCompletesOnceInOrderWhenItsSessionResumesAfterEveryOfRepeatedResets(FaultTransport transport,
                                                                                    TestInfo info) throws Exception {
        ResumeFaultSession s = start(transport, SESSION_TIMEOUT_MS, info);
        startStream(s);
        CompletableFuture<Line> streamEnd = CompletableFuture.supplyAsync(
                () -> s.client().await("STREAM", STREAM_WAIT));
        List<Long> resetAt = new ArrayList<>();
        List<Long> resumeMs = new ArrayList<>();
        Line stream;
        while (true) {
            try {
                stream = streamEnd.get(RESET_EVERY_MS, TimeUnit.MILLISECONDS);
                break;
            } catch (TimeoutException stillStreaming) {
                resetAt.add(PeerConsole.now());
                long clearedAt = resetOnce(s);
                int expected = resumeMs.size() + 1;
                Line resumed = s.client().await("RESUMED", l -> l.getLong("resumes") == expected, STEP);
                resumeMs.add(resumed.getLong("at") - clearedAt);
            }
        }

        assertThat(stream.get("end")).as("the sender's stream: %s", stream).isEqualTo("OK");
        long streamEndedAt = stream.getLong("at");
        assertThat(resetAt.stream().filter(at -> at < streamEndedAt).count())
                .as("resets made while the stream was in flight").isGreaterThanOrEqualTo(2);
        Line ended = s.closeAndCheck(MESSAGES, stream.getLong("bytes"));
        assertThat(ended.getLong("resumes")).as("resumes: one per reset").isEqualTo(resumeMs.size());
        s.assertBothRecovered();

        FaultReport.record(String.format("resumable session %s, a TCP reset every %d ms: %,d messages in %d ms; %d "
                        + "resets, %d resumes, %,d messages replayed; resumed %d..%d ms after each reset was lifted",
                transport, RESET_EVERY_MS, MESSAGES, stream.getLong("ms"), resumeMs.size(), ended.getLong("resumes"),
                ended.getLong("replayed"), min(resumeMs), max(resumeMs)));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(FaultTransport.class)
    @Timeout(150)
    void putsToASessionWindowCompleteIntactWhenTheSessionResumesAfterALinkCut(FaultTransport transport,
                                                                             TestInfo info) throws Exception {
        ResumeFaultSession s = start(transport, SESSION_TIMEOUT_MS, info);
        net.client().shaper().limit(PUT_RATE);
        Line puts;
        long cutAt;
        long healedAt;
        try {
            s.client().send("PUTS chunk=" + PUT_CHUNK + " timeout=" + STREAM_GUARD_MS);
            s.client().await("PUTS", l -> l.fields().containsKey("started"), STEP);
            Thread.sleep(CUT_PUTS_AFTER_MS);
            cutAt = PeerConsole.now();
            net.client().linkDown();
            Thread.sleep(FAULT_MS);
            healedAt = PeerConsole.now();
            net.client().linkUp();
            puts = s.client().await("PUTS", l -> l.fields().containsKey("end"), STREAM_WAIT);
        } finally {
            net.client().shaper().clear();
        }
        Line disconnected = s.client().await("DISCONNECTED", STEP);
        Line resumed = s.client().await("RESUMED", STEP);

        assertThat(puts.get("end")).as("the puts: %s", puts).isEqualTo("OK");
        assertThat(puts.getLong("bytes")).as("bytes put").isEqualTo(8L << 20);
        assertThat(puts.getLong("at")).as("the puts were still in flight during the cut").isGreaterThan(healedAt);
        assertThat(resumed.getLong("at")).as("the session resumed once the link was back")
                .isGreaterThanOrEqualTo(healedAt);
        Line ended = s.closeAndCheck(0, 0);
        assertThat(s.serverReceived().get("crc")).as("CRC32C of the server's window").isEqualTo(puts.get("crc"));
        assertThat(ended.getLong("resumes")).as("resumes").isPositive();
        s.assertBothRecovered();

        FaultReport.record(String.format("resumable session %s, 8 MiB of %d KiB puts at %s, link down %d ms from %d "
                        + "ms in: done in %d ms; connection lost %d ms after the cut, %d resume(s); resumed %d ms "
                        + "after the link came back", transport, PUT_CHUNK >> 10, PUT_RATE, FAULT_MS,
                CUT_PUTS_AFTER_MS, puts.getLong("ms"), disconnected.getLong("at") - cutAt, ended.getLong("resumes"),
                resumed.getLong("at") - healedAt));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(FaultTransport.class)
    @Timeout(150)
    void aCounterUpdatedByFetchAddsAcrossRepeatedResetsEndsExactlyAtTheirNumber(FaultTransport transport,
                                                                                TestInfo info) throws Exception {
        ResumeFaultSession s = start(transport, SESSION_TIMEOUT_MS, info);
        s.client().send("COUNT n=" + FETCH_ADDS + " timeout=" + STREAM_GUARD_MS);
        s.client().await("PROGRESS", l -> "count".equals(l.get("op")), STEP); // a tenth done: the calls flow
        List<Long> resumeMs = new ArrayList<>();
        long lastResetAt = 0;
        for (int r = 1; r <= COUNTER_RESETS; r++) {
            lastResetAt = PeerConsole.now();
            long clearedAt = resetOnce(s);
            int expected = r;
            Line resumed = s.client().await("RESUMED", l -> l.getLong("resumes") == expected, STEP);
            resumeMs.add(resumed.getLong("at") - clearedAt);
        }
        Line count = s.client().await("COUNT", STREAM_WAIT);

        assertThat(count.get("end")).as("the fetch-adds: %s", count).isEqualTo("OK");
        assertThat(count.getLong("done")).as("fetch-adds completed").isEqualTo(FETCH_ADDS);
        assertThat(count.getLong("distinct")).as("previous values 0..%d, each seen once", FETCH_ADDS - 1)
                .isEqualTo(FETCH_ADDS);
        assertThat(count.getLong("at")).as("the fetch-adds were still in flight at the last reset")
                .isGreaterThan(lastResetAt);
        Line ended = s.closeAndCheck(0, 0);
        assertThat(s.serverReceived().getLong("counter")).as("the server's counter").isEqualTo(FETCH_ADDS);
        assertThat(ended.getLong("resumes")).as("resumes: one per reset").isEqualTo(COUNTER_RESETS);
        s.assertBothRecovered();

        FaultReport.record(String.format("resumable session %s, %,d fetch-adds across %d TCP resets: counter %,d in "
                        + "%d ms; resumed %d..%d ms after each reset was lifted", transport, FETCH_ADDS,
                COUNTER_RESETS, s.serverReceived().getLong("counter"), count.getLong("ms"), min(resumeMs),
                max(resumeMs)));
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(FaultTransport.class)
    @Timeout(120)
    void aResumeAfterTheServerExpiredTheSessionFailsEverythingPendingWithSessionExpired(FaultTransport transport,
                                                                                     TestInfo info)
            throws Exception {
        ResumeFaultSession s = start(transport, SHORT_SESSION_TIMEOUT_MS, info);
        startStream(s);
        long cutAt = PeerConsole.now();
        net.client().linkDown();
        Line serverReceived;
        Line serverEnded;
        try {
            serverReceived = s.server().await("RECEIVED", EXPIRY_WAIT);
            serverEnded = s.server().await("ENDED", EXPIRY_WAIT);
        } finally {
            net.client().linkUp();
        }
        long upAt = PeerConsole.now();
        Line stream = s.client().await("STREAM", STEP);
        Line receive = s.client().await("RECEIVE", STEP);
        Line ended = s.client().await("ENDED", STEP);

        assertThat(serverEnded.get("end")).as("the server's session: %s", serverEnded)
                .isEqualTo("SessionExpiredException");
        assertThat(serverEnded.getLong("at") - cutAt).as("ms from the cut to the server's expiry")
                .isGreaterThanOrEqualTo(SHORT_SESSION_TIMEOUT_MS);
        assertThat(serverReceived.get("end")).as("the server's receive(): %s", serverReceived)
                .isEqualTo("SessionExpiredException");
        assertThat(serverReceived.get("bad")).as("what the server took before: %s", serverReceived).isEqualTo("0");
        assertThat(ended.get("end")).as("the client's session: %s", ended).isEqualTo("SessionExpiredException");
        assertThat(ended.text()).as("the client's session ended because its resume was refused").contains("refused");
        assertThat(ended.getLong("at")).as("the client's session ended after the link came back")
                .isGreaterThanOrEqualTo(upAt);
        assertThat(stream.get("end")).as("the pending sends: %s", stream).isEqualTo("SessionExpiredException");
        assertThat(receive.get("end")).as("the client's receive(): %s", receive).isEqualTo("SessionExpiredException");
        s.assertBothRecovered();

        FaultReport.record(String.format("resumable session %s, link down past the server's %d ms session timeout: "
                        + "the server's session expired %d ms after the cut; the client's resume was refused and its "
                        + "session ended %d ms after the link came back (%,d messages taken before)", transport,
                SHORT_SESSION_TIMEOUT_MS, serverEnded.getLong("at") - cutAt, ended.getLong("at") - upAt,
                serverReceived.getLong("count")));
    }

    /**
     * Both sides with the short liveness settings; the server's session timeout {@code serverSessionTimeoutMs}, the
     * client's {@link #SESSION_TIMEOUT_MS}. Skips when the transport cannot run here.
     */
    private ResumeFaultSession start(FaultTransport transport, long serverSessionTimeoutMs, TestInfo info) {
        Optional<String> unavailable = transport.unavailable();
        assumeTrue(unavailable.isEmpty(), () -> unavailable.orElse(""));
        String logName = (getClass().getSimpleName() + "-" + info.getTestMethod().map(m -> m.getName()).orElse("")
                + "-" + info.getDisplayName()).replaceAll("[^A-Za-z0-9.-]+", "_");
        session = ResumeFaultSession.start(net, transport, serverSessionTimeoutMs, SESSION_TIMEOUT_MS,
                SHORT_LIVENESS, logName);
        session.connect();
        return session;
    }

    /** Starts the stream and returns once a tenth of it is under way, so the fault lands mid-stream. */
    private static void startStream(ResumeFaultSession s) {
        s.client().send("STREAM n=" + MESSAGES + " timeout=" + STREAM_GUARD_MS);
        s.client().await("PROGRESS", STEP);
    }

    /**
     * After a fault from {@code faultAt} to {@code healedAt}: the connection below the session ended within the peer
     * timeout, the session resumed once (the fault ended one connection) when the network was back, the stream
     * completed after that, and the server's application took every message once, in order, intact.
     */
    private void streamResumedOnce(String fault, FaultTransport transport, ResumeFaultSession s, long faultAt,
                                   long healedAt) throws InterruptedException {
        Line disconnected = s.client().await("DISCONNECTED", STEP);
        Line resumed = s.client().await("RESUMED", STEP);
        Line stream = s.client().await("STREAM", STREAM_WAIT);
        assertLivenessNoticed(disconnected, faultAt, "the session losing its connection");
        assertThat(resumed.getLong("at")).as("the session resumed once the network was back")
                .isGreaterThanOrEqualTo(healedAt);
        assertThat(stream.get("end")).as("the sender's stream: %s", stream).isEqualTo("OK");
        assertThat(stream.getLong("at")).as("the stream was still in flight during the fault").isGreaterThan(healedAt);
        Line ended = s.closeAndCheck(MESSAGES, stream.getLong("bytes"));
        assertThat(ended.getLong("resumes")).as("resumes").isOne();
        s.assertBothRecovered();

        FaultReport.record(String.format("resumable session %s, %s %d ms: %,d messages in %d ms; connection lost "
                        + "%d ms after the fault, %d resume, %,d messages replayed; resumed %d ms after healing",
                transport, fault, FAULT_MS, MESSAGES, stream.getLong("ms"), disconnected.getLong("at") - faultAt,
                ended.getLong("resumes"), ended.getLong("replayed"), resumed.getLong("at") - healedAt));
    }

    /**
     * Answers TCP segments arriving at the server with resets until the client's session has lost its connection,
     * then lifts the rule; returns when the rule's removal was issued. The rule stays that long so that every reset
     * ends the connection on every transport: over libfabric, whose heartbeats travel on the bootstrap channel beside
     * the provider's data connection, a rule lifted as soon as it had answered one segment once left the stream
     * stalled with no end noticed for 30 s.
     */
    private long resetOnce(ResumeFaultSession s) {
        Firewall firewall = net.server().firewall();
        long liftedAt;
        firewall.resetTcp();
        try {
            s.client().await("DISCONNECTED", RESET_NOTICED_WITHIN);
            assertThat(firewall.hits()).as("segments the reset rule answered").isPositive();
        } finally {
            liftedAt = PeerConsole.now();
            firewall.clear();
        }
        return liftedAt;
    }

    private static long min(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).min().orElse(-1);
    }

    private static long max(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).max().orElse(-1);
    }
}
