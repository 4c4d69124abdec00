package dev.rivulet.faults;

import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Scenario 1: a stream of 10^6 {@link StreamMessages} from the client namespace to the server namespace while each
 * side drops 1 % or 5 % of the packets arriving on its veth (data and ACKs). The server checks every message as it
 * arrives: exactly the next sequence, the right size, an intact checksum. The stream must complete, the server must
 * count exactly 10^6 messages with no bad one (nothing lost, duplicated, reordered or corrupted), the loss rules must
 * have dropped about the share asked for of the packets that arrived ({@link NamespaceScenario#assertLossApplied}),
 * and both sides must be back at their baseline afterwards.
 */
class PacketLossStreamTest extends NamespaceScenario {

    static final long MESSAGES = 1_000_000;

    static Stream<Arguments> cases() {
        return Stream.of(FaultTransport.values()).flatMap(t -> Stream.of(Arguments.of(t, 1.0), Arguments.of(t, 5.0)));
    }

    @ParameterizedTest(name = "{0}, {1}% loss")
    @MethodSource("cases")
    @Timeout(240)
    void millionMessagesArriveOnceInOrderAndIntact(FaultTransport transport, double lossPercent, TestInfo info)
            throws Exception {
        long started = System.nanoTime();
        FaultSession s = start(transport, "verify", List.of(), info);
        s.connect();
        net.client().firewall().dropRandomly(lossPercent);
        net.server().firewall().dropRandomly(lossPercent);
        long retransmitsBefore = net.client().tcpRetransmits() + net.server().tcpRetransmits();

        s.client().send("STREAM n=" + MESSAGES + " timeout=200000");
        Line sent = s.client().await("STREAM", Duration.ofSeconds(210));
        Firewall.Loss clientLoss = net.client().firewall().loss();
        Firewall.Loss serverLoss = net.server().firewall().loss();
        long retransmits = net.client().tcpRetransmits() + net.server().tcpRetransmits() - retransmitsBefore;
        net.heal();
        assertThat(sent.get("end")).as("the sender's stream ends: %s", sent).isEqualTo("OK");
        Firewall.Loss loss = assertLossApplied(lossPercent, clientLoss, serverLoss);

        s.closeClient();
        Line received = s.awaitServer("RECEIVED", FaultSession.STEP);
        assertThat(received.get("bad")).as("messages out of sequence or corrupt: %s", received).isEqualTo("0");
        assertThat(received.getLong("count")).as("messages the server received").isEqualTo(MESSAGES);
        assertThat(received.getLong("bytes")).as("bytes the server received").isEqualTo(sent.getLong("bytes"));
        assertThat(received.get("end")).as("the server's receive stream completes at the graceful close")
                .isEqualTo("complete");
        s.assertBothRecovered();

        long ms = sent.getLong("ms");
        FaultReport.record(String.format("stream %s, %.0f%% loss: %,d messages (%s) in %d ms = %s messages, %s; "
                        + "%,d of %,d packets dropped, %,d TCP retransmissions; scenario %d ms", transport,
                lossPercent,
                MESSAGES, FaultReport.mb(sent.getLong("bytes")), ms, FaultReport.perSecond(MESSAGES, ms),
                FaultReport.rate(sent.getLong("bytes"), ms), loss.dropped(), loss.arrived(), retransmits,
                (System.nanoTime() - started) / 1_000_000));
    }
}
