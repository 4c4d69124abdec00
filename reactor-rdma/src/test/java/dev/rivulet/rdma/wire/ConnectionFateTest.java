package dev.rivulet.rdma.wire;

import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.rdma.bootstrap.LivenessChannel;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConnectionFateTest {

    private static final long SECOND = 1_000_000_000L;
    private final RecordingEvents events = new RecordingEvents();
    private final ConnectionFate fate = new ConnectionFate("test", "peer:1",
            LivenessSettings.defaults().peerTimeout(Duration.ofSeconds(5)));

    @Test
    void aGoodbyeIsTakenOnlyOnceEveryMessageItAnnouncedWasHandedUp() {
        fate.peerGone(true, 3, null);
        assertThat(fate.reportPeer(events, SECOND, 2, true)).isFalse();
        assertThat(fate.reportPeer(events, SECOND, 3, false)).as("the last one still waits").isFalse();
        assertThat(fate.reportPeer(events, SECOND, 3, true)).isTrue();
        assertThat(events.words).containsExactly(ControlWord.encode(ControlWord.CLOSE, 0));
        assertThat(fate.reportPeer(events, SECOND, 3, true)).as("reported once").isFalse();
    }

    @Test
    void aGoodbyeThatCountsNothingIsTakenAtOnce() {
        fate.peerGone(true, -1, null);
        assertThat(fate.reportPeer(events, SECOND, 0, false)).isTrue();
        assertThat(events.words).hasSize(1);
    }

    @Test
    void aGoodbyeWhoseMessagesNeverArriveBreaksTheConnectionAfterThePeerTimeout() {
        fate.peerGone(true, 10, null);
        fate.reportPeer(events, SECOND, 4, true);
        fate.reportPeer(events, 7 * SECOND, 4, true);
        assertThat(events.words).isEmpty();
        assertThat(events.breaks).singleElement().isInstanceOf(ConnectionLostException.class)
                .extracting(Throwable::getMessage).asString().contains("10 messages, of which 4 arrived");
    }

    @Test
    void aLostPeerBreaksTheConnection() {
        fate.peerGone(false, -1, "bootstrap connection ended without a goodbye");
        assertThat(fate.reportPeer(events, SECOND, 0, true)).isTrue();
        assertThat(events.breaks).singleElement().extracting(Throwable::getMessage).asString()
                .contains("peer at peer:1 is gone").contains("without a goodbye");
    }

    @Test
    void aLossBreaksTheConnectionOnlyWhenNoGoodbyeFollowsWithinTheGracePeriod() {
        ConnectionLostException loss = new ConnectionLostException("send failed");
        fate.noteLoss(loss, SECOND);
        assertThat(fate.lossPending()).isTrue();
        assertThat(fate.breakIfLossOutlived(events, SECOND + ConnectionFate.LOSS_GRACE_NANOS)).isFalse();
        assertThat(fate.breakIfLossOutlived(events, SECOND + ConnectionFate.LOSS_GRACE_NANOS + 1)).isTrue();
        assertThat(events.breaks).containsExactly(loss);
    }

    @Test
    void aGoodbyeWithinTheGracePeriodTurnsALossIntoAnOrderlyClose() {
        fate.noteLoss(new ConnectionLostException("send failed"), SECOND);
        fate.peerGone(true, -1, null);
        assertThat(fate.breakIfLossOutlived(events, 3 * SECOND)).isFalse();
        assertThat(fate.reportPeer(events, 3 * SECOND, 0, true)).isTrue();
        assertThat(events.breaks).isEmpty();
    }

    @Test
    void aGoodbyeThatArrivedButIsNotReadYetStillTurnsALossIntoAnOrderlyClose() throws Exception {
        try (SocketPair sockets = new SocketPair()) {
            LivenessChannel channel = new LivenessChannel(sockets.here);
            fate.waitForGoodbyeOn(channel);
            new LivenessChannel(sockets.there).goodbye(-1); // the peer says goodbye, then ends its fabric connection
            long lost = System.nanoTime();
            fate.noteLoss(new ConnectionLostException("send failed"), lost);
            assertThat(fate.breakIfLossOutlived(events, lost + 10 * ConnectionFate.LOSS_GRACE_NANOS))
                    .as("past the grace period by the clock, but the channel's thread has not run yet").isFalse();
            channel.watch(fate::peerGone, LivenessSettings.defaults(), "fate-test");
            awaitTrue(fate::peerClosed);
            assertThat(fate.breakIfLossOutlived(events, lost + 10 * ConnectionFate.LOSS_GRACE_NANOS)).isFalse();
            assertThat(fate.reportPeer(events, System.nanoTime(), 0, true)).isTrue();
            assertThat(events.breaks).isEmpty();
            assertThat(events.words).containsExactly(ControlWord.encode(ControlWord.CLOSE, 0));
        }
    }

    @Test
    void aLossBreaksTheConnectionOnceTheChannelHasReadPastTheGracePeriodWithoutAGoodbye() throws Exception {
        try (SocketPair sockets = new SocketPair()) {
            LivenessChannel channel = new LivenessChannel(sockets.here);
            fate.waitForGoodbyeOn(channel);
            channel.watch(fate::peerGone, LivenessSettings.defaults().heartbeatInterval(Duration.ofMillis(40))
                    .peerTimeout(Duration.ofSeconds(30)), "fate-test");
            ConnectionLostException loss = new ConnectionLostException("send failed");
            long lost = System.nanoTime();
            fate.noteLoss(loss, lost);
            awaitTrue(() -> fate.breakIfLossOutlived(events, System.nanoTime()));
            assertThat(System.nanoTime() - lost).isGreaterThan(ConnectionFate.LOSS_GRACE_NANOS);
            assertThat(events.breaks).containsExactly(loss);
        }
    }

    private static void awaitTrue(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + 5 * SECOND;
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime() - deadline).as("waited 5 s").isNegative();
            Thread.sleep(5);
        }
    }

    /** Both ends of a loopback TCP connection, as the bootstrap channel's. */
    private static final class SocketPair implements AutoCloseable {
        final Socket here;
        final Socket there;

        SocketPair() throws IOException {
            try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                there = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
                here = server.accept();
            }
        }

        @Override
        public void close() throws IOException {
            here.close();
            there.close();
        }
    }

    @Test
    void theEngineHearsOfTheFirstBreakOnlyAndOperationsEndWithIt() {
        ConnectionLostException first = new ConnectionLostException("first");
        fate.broken(events, first);
        fate.broken(events, new ConnectionLostException("second"));
        assertThat(events.breaks).containsExactly(first);
        assertThat(fate.isBroken()).isTrue();
        assertThat(fate.closedCause()).isSameAs(first);
    }

    @Test
    void aClosedWireRefusesPostsAndEndsOperationsWithTheClose() {
        assertThat(fate.close()).isTrue();
        assertThat(fate.close()).as("a close runs once").isFalse();
        assertThatThrownBy(fate::ensureOpen).isInstanceOf(ResourceClosedException.class);
        assertThat(fate.closedCause()).isInstanceOf(ResourceClosedException.class);
    }

    @Test
    void whatIsStillPostedIsReportedOnTheFirstPollAfterTheCloseOnly() {
        assertThat(fate.drainNow()).as("not before the close").isFalse();
        fate.close();
        assertThat(fate.drainNow()).isTrue();
        assertThat(fate.drainNow()).isFalse();
    }
}
