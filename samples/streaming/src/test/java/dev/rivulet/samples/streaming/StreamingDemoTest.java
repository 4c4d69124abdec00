package dev.rivulet.samples.streaming;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.Buffer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class StreamingDemoTest {

    private static DemoResult run(DemoOptions o, StringBuilder printed) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DemoResult r;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            r = StreamingDemo.run(o, out);
        }
        printed.append(bytes.toString(StandardCharsets.UTF_8));
        return r;
    }

    @Test
    void streamsEveryMessageIntactToASlowConsumer() {
        DemoOptions o = DemoOptions.parse("--messages", "2000", "--size", "256", "--consumer-delay-us", "5",
                "--transport", "local", "--timeout-s", "60")
                .withAddress("local://demo-test-" + UUID.randomUUID());
        StringBuilder out = new StringBuilder();
        DemoResult r = run(o, out);

        assertThat(r.ok()).as(out.toString()).isTrue();
        assertThat(r.received()).isEqualTo(2000);
        assertThat(r.verified()).isEqualTo(2000);
        assertThat(r.mismatches()).isZero();
        assertThat(r.lost()).isZero();
        assertThat(r.messagesSent()).isEqualTo(2000);
        assertThat(r.messagesSent()).isLessThanOrEqualTo(r.creditsGranted());
        assertThat(r.maxSendsInFlight()).isBetween(1, r.receiveQueueDepth());
        assertThat(r.maxReceivesPosted()).isBetween(1, r.receiveQueueDepth());
        assertThat(out.toString()).contains("SUMMARY transport=local").contains("| OK");
    }

    @Test
    void creditsBoundInFlightWithASmallReceiveQueue() {
        DemoOptions o = DemoOptions.parse("--messages", "2000", "--size", "64", "--consumer-delay-us", "0",
                "--queue-depth", "8", "--transport", "local")
                .withAddress("local://demo-test-" + UUID.randomUUID());
        StringBuilder out = new StringBuilder();
        DemoResult r = run(o, out);

        assertThat(r.ok()).as(out.toString()).isTrue();
        assertThat(r.receiveQueueDepth()).isEqualTo(8);
        assertThat(r.maxSendsInFlight()).isBetween(1, 8);
        assertThat(r.maxReceivesPosted()).isBetween(1, 8);
        assertThat(r.received()).isEqualTo(2000);
    }

    @Test
    void verificationCatchesCorruptedAndMisnumberedMessages() {
        Transport t = Transports.open("local", TransportConfig.defaults());
        try {
            Buffer b = DemoMessages.write(t.memory().allocate(100), 42);
            assertThat(DemoMessages.verify(b, 42, 100)).isTrue();
            assertThat(DemoMessages.verify(b, 41, 100)).isFalse();
            assertThat(DemoMessages.verify(b, 42, 64)).isFalse();
            byte last = b.capacitySegment().get(ValueLayout.JAVA_BYTE, 99);
            b.capacitySegment().set(ValueLayout.JAVA_BYTE, 99, (byte) (last + 1));
            assertThat(DemoMessages.verify(b, 42, 100)).isFalse();
            b.capacitySegment().set(ValueLayout.JAVA_BYTE, 99, last);
            b.capacitySegment().set(ValueLayout.JAVA_BYTE, 20, (byte) 0x5A);
            assertThat(DemoMessages.verify(b, 42, 100)).isEqualTo(DemoMessages.filler(42) == 0x5A);
            b.release();
        } finally {
            t.dispose();
        }
    }

    @Test
    void aRunWithLossOrMismatchesIsNotOk() {
        DemoResult good = new DemoResult("local", 10, 64, 10, 10, 0, 1_000_000, 0, 4, 8, 128, 10, 138, 0, 0, null,
                null);
        assertThat(good.ok()).isTrue();
        assertThat(good.lost()).isZero();
        DemoResult lost = new DemoResult("local", 10, 64, 9, 9, 0, 1_000_000, 0, 4, 8, 128, 10, 138, 0, 0, null,
                null);
        assertThat(lost.ok()).isFalse();
        assertThat(lost.lost()).isEqualTo(1);
        assertThat(lost.summary()).contains("lost=1").contains("FAILED");
        DemoResult corrupt = new DemoResult("local", 10, 64, 10, 9, 1, 1_000_000, 0, 4, 8, 128, 10, 138, 0, 0,
                "message #3", null);
        assertThat(corrupt.ok()).isFalse();
        assertThat(corrupt.summary()).contains("first mismatch: message #3");
        DemoResult overCredit = new DemoResult("local", 10, 64, 10, 10, 0, 1_000_000, 0, 129, 8, 128, 10, 138, 0,
                0, null, null);
        assertThat(overCredit.ok()).isFalse();
    }

    @Test
    void parsesOptionsAndRejectsNonsense() {
        DemoOptions d = DemoOptions.parse();
        assertThat(d.messages()).isEqualTo(200_000);
        assertThat(d.size()).isEqualTo(256);
        assertThat(d.transport()).isNull();
        DemoOptions o = DemoOptions.parse("--messages=1_000", "--size", "1024", "--transport", "local",
                "--consumer-delay-us", "0");
        assertThat(o.messages()).isEqualTo(1000);
        assertThat(o.size()).isEqualTo(1024);
        assertThat(o.transport()).isEqualTo("local");
        assertThat(o.consumerDelayUs()).isZero();
        assertThatThrownBy(() -> DemoOptions.parse("--size", "4")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DemoOptions.parse("--bogus", "1")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> DemoOptions.parse("--messages")).isInstanceOf(IllegalArgumentException.class);
        assertThat(StreamingDemo.target(DemoOptions.defaults()).provider()).isIn(DemoAddresses.providers());
    }
}
