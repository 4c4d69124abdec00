package dev.rivulet.samples.pingpong;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The pieces of fi_pingpong's protocol that are pure data, checked against what fi_pingpong 1.17 was seen to do:
 * the bytes of the control channel, the {@code -c} pattern, the size lists, the table and the command line.
 */
class PingPongProtocolTest {

    @Test
    void patternMatchesFiPingpongsMessagesAndCountsPerProcess() {
        DataPattern sender = new DataPattern(64);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(16);
            // fi_pingpong -S 16 -c, seen with strace: its first three messages.
            sender.fill(m, 16);
            assertThat(text(m)).isEqualTo("0123456789abcdef");
            sender.fill(m, 16);
            assertThat(text(m)).isEqualTo("789abcdefghijklm");
            sender.fill(m, 16);
            assertThat(text(m)).isEqualTo("efghijklmnopqrst");

            DataPattern receiver = new DataPattern(64);
            sender = new DataPattern(64);
            sender.fill(m, 0); // a zero-byte message still counts on both sides
            assertThat(receiver.check(m, 0)).isEqualTo(-1);
            sender.fill(m, 16);
            assertThat(receiver.check(m, 16)).isEqualTo(-1);
            sender.fill(m, 16); // a message that never arrives...
            sender.fill(m, 16);
            assertThat(receiver.check(m, 16)).as("...puts every later one out of step").isZero();
            assertThat(receiver.checkedCount()).isEqualTo(3);
        }
    }

    @Test
    void patternWrapsAroundTheAlphabetAndDetectsOneWrongByte() {
        DataPattern sender = new DataPattern(200);
        DataPattern receiver = new DataPattern(200);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(200);
            for (int k = 0; k < 70; k++) { // past 62 messages, the start index cycles through the alphabet again
                sender.fill(m, 200);
                assertThat(receiver.check(m, 200)).isEqualTo(-1);
            }
            sender.fill(m, 200);
            m.set(JAVA_BYTE, 137, (byte) (m.get(JAVA_BYTE, 137) ^ 1));
            assertThat(receiver.check(m, 200)).isEqualTo(137);
        }
    }

    @Test
    void sizeListsAreFiPingpongs() {
        assertThat(SizeList.defaults().sizes(SizeList.MAX_DATA_MESSAGE))
                .containsExactly(64, 256, 1024, 4096, 65536, 1048576);
        assertThat(SizeList.defaults().sizes(4096)).containsExactly(64, 256, 1024, 4096);
        assertThat(SizeList.single(4096).sizes(4096)).containsExactly(4096);
        assertThat(SizeList.single(4096).sizes(1024)).as("a size above max_msg_size runs nothing").isEmpty();
        assertThat(SizeList.all().sizes(SizeList.MAX_DATA_MESSAGE))
                .startsWith(0, 1, 2, 3, 4, 6, 8, 12, 16, 24)
                .endsWith(3145728, 4194304, 6291456)
                .hasSize(46);
        assertThat(SizeList.single(100).bufferSize()).isEqualTo(100);
        assertThat(SizeList.all().bufferSize()).isEqualTo(6 << 20);
    }

    @Test
    void tableReadsLikeFiPingpongs() {
        // Lines fi_pingpong 1.17 printed here, character for character.
        assertThat(ResultTable.HEADER)
                .isEqualTo("bytes   #sent   #ack     total       time     MB/sec    usec/xfer   Mxfers/sec");
        assertThat(ResultTable.line(new RoundResult(65536, 100, 100, 20_498_000)))
                .isEqualTo("64k     100     =100     12m         0.02s    639.44     102.49       0.01");
        assertThat(ResultTable.line(new RoundResult(1024, 100, 100, 1_314_000)))
                .isEqualTo("1k      100     =100     200k        0.00s    155.86       6.57       0.15");
        assertThat(ResultTable.size(1536)).isEqualTo("1.5k");
        assertThat(ResultTable.size(6291456)).isEqualTo("6m");
        assertThat(ResultTable.size(0)).isEqualTo("0");
        assertThat(ResultTable.count(20_000)).isEqualTo("20k");
        assertThat(ResultTable.line(new RoundResult(64, 10, 7, 1_000_000))).startsWith("64      10      +3  ");
    }

    @Test
    void controlChannelBytesAreFiPingpongs() throws Exception {
        int port = FiPingpong.freePort();
        CompletableFuture<ControlChannel> accepted = CompletableFuture.supplyAsync(() -> {
            try {
                return ControlChannel.accept(port, Duration.ofSeconds(10), p -> { });
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        try (Socket peer = connectWithRetry(port);
             ControlChannel server = accepted.get(10, TimeUnit.SECONDS)) {
            peer.setSoTimeout(10_000);
            InputStream in = peer.getInputStream();
            OutputStream out = peer.getOutputStream();

            byte[] sockaddr = HexFormat.of().parseHex("0200a58fc00002020000000000000000");
            server.sendName(new FabricName(sockaddr, 2));
            // length 16 big-endian, FI_SOCKADDR_IN (2) little-endian, then the name: as seen on the wire
            assertThat(HexFormat.of().formatHex(in.readNBytes(24)))
                    .isEqualTo("00000010" + "02000000" + "0200a58fc00002020000000000000000");

            out.write(HexFormat.of().parseHex("00000010" + "02000000" + "0200a58fc00002020000000000000000"));
            FabricName received = server.receiveName();
            assertThat(received.bytes()).isEqualTo(sockaddr);
            assertThat(received.addrFormat()).isEqualTo(2);
            assertThat(received).hasToString("192.0.2.2:42383");

            out.write(new byte[]{'q', 0});
            server.syncAsServer();
            assertThat(in.readNBytes(2)).containsExactly('a', 0);

            out.write("100\0\0\0\0\0\0\0".getBytes(StandardCharsets.US_ASCII));
            assertThat(server.receiveCount()).isEqualTo(100);
            assertThat(new String(in.readNBytes(7), StandardCharsets.US_ASCII)).isEqualTo("cnt ok\0");

            out.write(new byte[]{'x', 0});
            assertThatThrownBy(server::syncAsServer).isInstanceOf(PingPongException.class)
                    .hasMessageContaining("bad sync request");
        }
    }

    @Test
    void commandLineIsFiPingpongs() {
        PingPongOptions server = PingPongOptions.parse("-p", "tcp", "-e", "rdm", "-S", "4096", "-I100", "-c");
        assertThat(server.isServer()).isTrue();
        assertThat(server.controlPort()).isEqualTo(47592);
        assertThat(server.iterations()).isEqualTo(100);
        assertThat(server.sizes().sizes(1 << 20)).containsExactly(4096);
        assertThat(server.verifyData()).isTrue();

        PingPongOptions client = PingPongOptions.parse("-S", "all", "-P", "5000", "10.0.0.1");
        assertThat(client.isServer()).isFalse();
        assertThat(client.serverHost()).isEqualTo("10.0.0.1");
        assertThat(client.controlPort()).isEqualTo(5000);
        assertThat(client.iterations()).isEqualTo(10);
        assertThat(client.provider()).isEqualTo("tcp");

        assertThatThrownBy(() -> PingPongOptions.parse("-e", "msg")).hasMessageContaining("only '-e rdm'");
        assertThatThrownBy(() -> PingPongOptions.parse("-S", "big")).hasMessageContaining("-S takes a number");
        assertThatThrownBy(() -> PingPongOptions.parse("-h")).hasMessage("help");
    }

    private static String text(MemorySegment m) {
        return new String(m.toArray(JAVA_BYTE), StandardCharsets.US_ASCII);
    }

    private static Socket connectWithRetry(int port) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                return new Socket("127.0.0.1", port);
            } catch (java.net.ConnectException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(20);
            }
        }
    }
}
