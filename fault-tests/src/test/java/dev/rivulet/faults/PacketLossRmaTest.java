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
 * Scenario 2: one-sided traffic under 1 % and 5 % packet loss. The client puts {@link #PUT_BYTES} into the window
 * the server granted it (rounds of up to eight puts of 1 byte to 1 MiB into disjoint slots, half streamed, half as
 * separate puts in flight together, each round flushed), reads the whole 8 MiB span back after every round and
 * compares it with its own shadow of what the window must hold; then a swap, 100 concurrent fetch-adds (every
 * previous value seen exactly once), a compare-and-swap and a get of the word, where the transport lists those
 * atomics. Afterwards the server's CRC32C of its window must equal the client's expected one, the loss rules must
 * have dropped about the share asked for ({@link NamespaceScenario#assertLossApplied}), and both sides must be back at
 * their baseline.
 */
class PacketLossRmaTest extends NamespaceScenario {

    static final long PUT_BYTES = 48L << 20;

    static Stream<Arguments> cases() {
        return Stream.of(FaultTransport.values()).flatMap(t -> Stream.of(Arguments.of(t, 1.0), Arguments.of(t, 5.0)));
    }

    @ParameterizedTest(name = "{0}, {1}% loss")
    @MethodSource("cases")
    @Timeout(180)
    void putsGetsAndAtomicsStayExactUnderLoss(FaultTransport transport, double lossPercent, TestInfo info)
            throws Exception {
        long started = System.nanoTime();
        FaultSession s = start(transport, "verify", List.of(), info);
        String handle = s.connect();
        net.client().firewall().dropRandomly(lossPercent);
        net.server().firewall().dropRandomly(lossPercent);

        s.client().send("RMA handle=" + handle + " bytes=" + PUT_BYTES + " timeout=150000");
        Line rma = s.client().await("RMA", Duration.ofSeconds(160));
        Firewall.Loss clientLoss = net.client().firewall().loss();
        Firewall.Loss serverLoss = net.server().firewall().loss();
        net.heal();
        assertThat(rma.get("end")).as("the RMA rounds end: %s", rma).isEqualTo("OK");
        Firewall.Loss loss = assertLossApplied(lossPercent, clientLoss, serverLoss);
        assertThat(rma.get("mismatches")).as("rounds whose read-back differed from the shadow: %s", rma)
                .isEqualTo("0");
        assertThat(rma.get("atomicsBad")).as("atomic sequences with a wrong result: %s", rma).isEqualTo("0");
        assertThat(s.serverChecksum(0, rma.getLong("span"))).as("the server's window holds what the client wrote")
                .isEqualTo(rma.get("crc"));
        s.closeClient();
        s.assertBothRecovered();

        long ms = rma.getLong("ms");
        long moved = rma.getLong("putBytes") + rma.getLong("getBytes");
        FaultReport.record(String.format("rma %s, %.0f%% loss: %d rounds, %s put + %s read back, %d atomics, in "
                        + "%d ms = %s; %,d of %,d packets dropped; scenario %d ms", transport, lossPercent,
                rma.getLong("rounds"), FaultReport.mb(rma.getLong("putBytes")),
                FaultReport.mb(rma.getLong("getBytes")), rma.getLong("atomics"), ms, FaultReport.rate(moved, ms),
                loss.dropped(), loss.arrived(), (System.nanoTime() - started) / 1_000_000));
    }
}
