package dev.rivulet.rdma.bootstrap;

import dev.rivulet.core.error.HandshakeException;
import dev.rivulet.core.liveness.LivenessSettings;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The bootstrap connection after set-up: it tells a graceful close from a vanished peer. */
class LivenessChannelTest {

    private ServerSocket server;
    private Socket a;
    private Socket b;

    @BeforeEach
    void connect() throws IOException {
        server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        a = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
        b = server.accept();
    }

    @AfterEach
    void close() throws IOException {
        a.close();
        b.close();
        server.close();
    }

    private static CompletableFuture<String> watch(Socket s, LivenessSettings settings) throws IOException {
        CompletableFuture<String> fate = new CompletableFuture<>();
        new LivenessChannel(s).watch((graceful, sent, reason) -> fate.complete(graceful ? "goodbye " + sent : reason),
                settings, "liveness-test");
        return fate;
    }

    @Test
    void aGoodbyeIsAGracefulClose() throws Exception {
        CompletableFuture<String> fate = watch(b, LivenessSettings.defaults());
        new LivenessChannel(a).goodbye(1234567890123L);
        assertThat(fate.get(5, TimeUnit.SECONDS)).isEqualTo("goodbye 1234567890123");
    }

    @Test
    void anAbortIsAPeerGoneWithTheReason() throws Exception {
        CompletableFuture<String> fate = watch(b, LivenessSettings.defaults());
        new LivenessChannel(a).abort();
        assertThat(fate.get(5, TimeUnit.SECONDS)).contains("without a goodbye");
    }

    @Test
    void aSilentPeerTimesOut() throws Exception {
        LivenessSettings quick = LivenessSettings.defaults().heartbeatInterval(Duration.ofMillis(50))
                .peerTimeout(Duration.ofMillis(300));
        CompletableFuture<String> fate = watch(b, quick); // a never answers a heartbeat
        assertThat(fate.get(5, TimeUnit.SECONDS)).contains("liveness.peerTimeout");
    }

    @Test
    void heartbeatsKeepTwoQuietPeersAlive() throws Exception {
        LivenessSettings quick = LivenessSettings.defaults().heartbeatInterval(Duration.ofMillis(50))
                .peerTimeout(Duration.ofMillis(300));
        CompletableFuture<String> fateA = watch(a, quick);
        CompletableFuture<String> fateB = watch(b, quick);
        Thread.sleep(1_000);
        assertThat(fateA).isNotDone();
        assertThat(fateB).isNotDone();
    }

    @Test
    void theListenerWaitsForReadyAndRefusesAnythingElse() throws Exception {
        LivenessChannel.sendReady(a);
        LivenessChannel.awaitReady(b, System.nanoTime() + 5_000_000_000L);
        a.getOutputStream().write(0x7f);
        assertThatThrownBy(() -> LivenessChannel.awaitReady(b, System.nanoTime() + 5_000_000_000L))
                .isInstanceOf(HandshakeException.class).hasMessageContaining("0x7f");
    }
}
