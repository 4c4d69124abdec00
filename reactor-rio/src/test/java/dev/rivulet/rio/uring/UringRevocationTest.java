package dev.rivulet.rio.uring;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Grant;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.rio.stream.FrameKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;

import static dev.rivulet.rio.uring.RawStreamPeer.concat;
import static dev.rivulet.rio.uring.RawStreamPeer.frame;
import static dev.rivulet.rio.uring.RawStreamPeer.header;
import static dev.rivulet.rio.uring.RawStreamPeer.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Revocation while a peer's request is under way on an io_uring connection: memory whose grant or region was closed
 * is neither written nor read for the peer afterwards, whatever the peer had already started. A put whose grant is
 * revoked in the middle of its data must not write another byte into the window, and a get whose answer was still
 * waiting to be written when its region closed is refused instead of answered with the region's bytes.
 */
@Timeout(90)
class UringRevocationTest extends RawPeerHarness {

    private static final byte UNTOUCHED = 0x11;
    private static final int GUARD = 4096;

    private final Arena arena = Arena.ofShared();

    @Override
    protected void afterTransportsDisposed() {
        arena.close();
    }

    private static byte[] filled(int n, int value) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) value);
        return b;
    }

    /** Offsets in {@code s} from {@code from} on whose byte is not {@code expected}: the first one, and how many. */
    private static String changed(MemorySegment s, long from, byte expected) {
        long first = -1;
        long count = 0;
        for (long i = from; i < s.byteSize(); i++) {
            if (s.get(ValueLayout.JAVA_BYTE, i) != expected) {
                count++;
                if (first < 0) {
                    first = i;
                }
            }
        }
        return count == 0 ? "none" : count + " bytes, the first at " + first;
    }

    private static void await(MemorySegment s, long from, long to, byte value, String what) throws Exception {
        long end = System.nanoTime() + TIMEOUT.toNanos();
        while (System.nanoTime() < end) {
            boolean all = true;
            for (long i = from; i < to && all; i++) {
                all = s.get(ValueLayout.JAVA_BYTE, i) == value;
            }
            if (all) {
                return;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("timed out waiting for " + what);
    }

    @Test
    void aPutWhoseGrantIsRevokedMidTransferWritesNothingMoreIntoTheWindow() throws Exception {
        listen(TransportConfig.defaults());
        Endpoint ep = rawPeer(0);
        int windowBytes = 1 << 20;
        MemoryRegion region = server.memory().register(arena.allocate(windowBytes + 2L * GUARD, 4096),
                Access.REMOTE_WRITE);
        region.segment().fill(UNTOUCHED);
        MemorySegment window = region.segment().asSlice(GUARD, windowBytes);
        Grant grant = ep.grant(region.slice(GUARD, windowBytes), Access.REMOTE_WRITE);
        RemoteMemory w = grant.remote();

        // The put's header, request and first 32 KiB; the rest (almost all of it) is still to come. The listener
        // now waits for the rest, with a receive of its own in the kernel.
        int first = 32 << 10;
        peer().write(concat(concat(header(FrameKind.PUT, 1, 40 + windowBytes),
                request(w.address(), w.key(), windowBytes)), filled(first, 0xAA)));
        await(window, 0, first, (byte) 0xAA, "the put's first bytes in the window");
        Thread.sleep(200); // the listener has posted its next receive by now

        grant.close();
        peer().write(filled(windowBytes - first, 0xBB));

        RawStreamPeer.Frame answer = peer().readSignificant(TIMEOUT);
        assertThat(answer).isNotNull();
        assertThat(answer.kind()).as("the put is refused").isEqualTo(FrameKind.RMA_ERR);
        assertThat(answer.tag()).isEqualTo(1);
        assertThat(changed(window, first, UNTOUCHED)).as("window bytes written after the revocation").isEqualTo("none");
        assertThat(changed(region.segment().asSlice(0, GUARD), 0, UNTOUCHED)).as("guard before").isEqualTo("none");
        assertThat(changed(region.segment().asSlice(GUARD + windowBytes), 0, UNTOUCHED)).as("guard after")
                .isEqualTo("none");

        // The connection goes on: a put under a fresh grant lands whole and is acknowledged.
        RemoteMemory again = ep.grant(region.slice(GUARD, windowBytes), Access.REMOTE_WRITE).remote();
        peer().write(concat(header(FrameKind.PUT, 2, 40 + windowBytes), request(again.address(), again.key(),
                windowBytes)));
        peer().write(filled(windowBytes, 0xCC));
        RawStreamPeer.Frame ack = peer().readSignificant(TIMEOUT);
        assertThat(ack.kind()).isEqualTo(FrameKind.RMA_ACK);
        assertThat(ack.tag()).isEqualTo(2);
        assertThat(changed(window, 0, (byte) 0xCC)).isEqualTo("none");
        assertThat(region.pins()).as("no pin left on the region").isZero();
        region.close();
    }

    @Test
    void aGetWaitingInTheBacklogWhenItsRegionClosesIsRefusedNotAnswered() throws Exception {
        // The peer sends gets and reads nothing, so answers back up and requests park in the listener's backlog; the
        // connection must outlive the test's pause (write and peer timeouts far away).
        listen(TransportConfig.defaults().liveness(new LivenessSettings(Duration.ofSeconds(10),
                Duration.ofSeconds(60), Duration.ofSeconds(60))));
        Endpoint ep = rawPeer(4096);
        int getBytes = 64 << 10;
        MemoryRegion region = server.memory().register(arena.allocate(1 << 20, 4096), Access.REMOTE_READ);
        region.segment().fill((byte) 0x22);
        RemoteMemory w = ep.grant(region.slice(), Access.REMOTE_READ).remote();

        byte[] get = frame(FrameKind.GET, 7, request(w.address(), w.key(), getBytes));
        long taken = peer().writeUntilStalled(get, 10_000_000, Duration.ofSeconds(1));
        long requests = taken / get.length; // a request cut in the middle stays unanswered
        assertThat(requests).as("the listener stopped reading before taking every request").isLessThan(10_000_000);

        region.close();
        // What an owner does with memory once its region is closed: the peer must never see this.
        region.segment().fill((byte) 0x77);

        long answered = 0;
        long refused = 0;
        for (long i = 0; i < requests; i++) {
            RawStreamPeer.Frame f = peer().readSignificant(TIMEOUT);
            assertThat(f).as("answer %d of %d", i, requests).isNotNull();
            if (f.kind() == FrameKind.GET_RESP) {
                assertThat(refused).as("an answer after a refusal").isZero();
                assertThat(f.payload()).as("answer %d was copied before the close", i).containsOnly((byte) 0x22);
                answered++;
            } else {
                assertThat(f.kind()).isEqualTo(FrameKind.RMA_ERR);
                assertThat(new String(f.payload(), StandardCharsets.UTF_8)).isEqualTo(MemoryDomain.REFUSED);
                refused++;
            }
        }
        assertThat(refused).as("gets whose answers waited past the close").isPositive();
        System.out.printf("%d gets: %d answered before the region closed, %d refused%n", requests, answered, refused);
        assertThat(ep.isDisposed()).as("refusing is no reason to end the connection").isFalse();
    }
}
