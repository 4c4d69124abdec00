package dev.rivulet.rio.uring;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.engine.AtomicOp;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.rio.stream.FrameKind;
import dev.rivulet.rio.stream.RmaRequest;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.test.StepVerifier;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static dev.rivulet.rio.uring.RawStreamPeer.concat;
import static dev.rivulet.rio.uring.RawStreamPeer.frame;
import static dev.rivulet.rio.uring.RawStreamPeer.header;
import static dev.rivulet.rio.uring.RawStreamPeer.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A peer through the handshake that speaks the stream protocol badly on purpose, request by request: keys next to
 * the real one, addresses and lengths that overflow, misaligned or malformed atomics, credit grants far beyond any
 * window, responses to requests never made, frames cut short, frame kinds the protocol does not have, payloads on
 * kinds that carry none. Every one is answered with the one refusal, or ends
 * the connection with a typed error; granted memory is never touched outside its window, and nothing leaks.
 */
@Timeout(60)
class UringAdversarialRequestTest extends RawPeerHarness {

    private final Arena arena = Arena.ofShared();

    @BeforeEach
    void start() {
        listen(TransportConfig.defaults());
    }

    @Override
    protected void afterTransportsDisposed() {
        arena.close();
    }

    private static byte[] atomic(long address, long key, int op, int width) {
        MemorySegment s = MemorySegment.ofArray(new byte[RmaRequest.BYTES]);
        RmaRequest.write(s, 0, address, key, width, op, width, 1, 0);
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void neighbouringKeysOverflowingRangesAndBadAtomicsAreAllRefusedAlike() throws Exception {
        Endpoint ep = rawPeer();
        MemoryRegion region = server.memory().register(arena.allocate(8192, 4096), Access.REMOTE_READ,
                Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
        region.segment().fill((byte) 0x11);
        RemoteMemory w = ep.grant(region.slice(4096, 1024), Access.REMOTE_READ, Access.REMOTE_WRITE,
                Access.REMOTE_ATOMIC).remote();
        byte[] data = new byte[64];
        long id = 1;
        long[][] puts = {
                {w.address(), w.key() + 1},
                {w.address(), w.key() - 1},
                {w.address(), w.key() ^ Long.MIN_VALUE},
                {w.address() + w.length() - 32, w.key()},          // runs 32 bytes past the window
                {w.address() - 1, w.key()},                        // starts one byte before it
                {Long.MAX_VALUE - 16, w.key()},                    // wraps around the address space
                {-8, w.key()},
        };
        for (long[] p : puts) {
            peer().write(frame(FrameKind.PUT, id, concat(request(p[0], p[1], data.length), data)));
            expectRefused(id++);
        }
        // a get asking for more than any request may carry, and one whose end wraps
        peer().write(frame(FrameKind.GET, id, request(w.address(), w.key(), -1)));
        expectRefused(id++);
        peer().write(frame(FrameKind.GET, id, request(w.address() + 8, w.key(), Integer.MAX_VALUE)));
        expectRefused(id++);
        // atomics: misaligned, an impossible width, an unknown operation
        peer().write(frame(FrameKind.ATOMIC, id, atomic(w.address() + 1, w.key(), AtomicOp.FETCH_ADD.ordinal(), 8)));
        expectRefused(id++);
        peer().write(frame(FrameKind.ATOMIC, id, atomic(w.address(), w.key(), AtomicOp.FETCH_ADD.ordinal(), 3)));
        expectRefused(id++);
        peer().write(frame(FrameKind.ATOMIC, id, atomic(w.address(), w.key(), 99, 8)));
        expectRefused(id++);
        for (long i = 0; i < 8192; i++) {
            assertThat(region.segment().get(ValueLayout.JAVA_BYTE, i)).as("byte %d", i).isEqualTo((byte) 0x11);
        }
        // and the connection still serves good requests
        peer().write(frame(FrameKind.ATOMIC, id, atomic(w.address(), w.key(), AtomicOp.FETCH_ADD.ordinal(), 8)));
        RawStreamPeer.Frame f = peer().readSignificant(TIMEOUT);
        assertThat(f.kind()).isEqualTo(FrameKind.ATOMIC_RESP);
        assertThat(RawStreamPeer.littleEndianLong(f.payload())).isEqualTo(0x1111111111111111L);
        region.close();
    }

    @Test
    void creditGrantsFarBeyondAnyWindowCostNothing() throws Exception {
        Endpoint ep = rawPeer();
        long outstanding = server.memory().buffers().outstanding();
        for (int i = 0; i < 10_000; i++) {
            peer().credit(ControlWord.MAX_CREDITS);
        }
        // The listener's side may now send as much as it likes; it sends one message and stays healthy.
        StepVerifier.create(ep.send(server.memory().allocate(8).write(new byte[8]))).verifyComplete();
        RawStreamPeer.Frame f = peer().readSignificant(TIMEOUT);
        assertThat(f.kind()).isEqualTo(FrameKind.MESSAGE);
        assertThat(ep.isDisposed()).isFalse();
        assertThat(server.memory().buffers().outstanding()).isEqualTo(outstanding);
    }

    @Test
    void aResponseToARequestNeverMadeEndsTheConnection() throws Exception {
        Endpoint ep = rawPeer();
        StepVerifier receive = StepVerifier.create(ep.receive())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(CreditProtocolException.class)
                        .hasMessageContaining("unexpected"))
                .verifyLater();
        peer().write(header(FrameKind.RMA_ACK, 12345, 0));
        receive.verify(TIMEOUT);
        assertThat(peer().awaitClosed(TIMEOUT)).isTrue();
    }

    @Test
    void framesCutShortByAnEndOfStreamLeaveNothingBehind() throws Exception {
        Endpoint ep = rawPeer();
        long outstanding = server.memory().buffers().outstanding();
        StepVerifier receive = StepVerifier.create(ep.receive())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(TransportException.class))
                .verifyLater();
        // wait for the credit receive() grants, then announce a message and send a tenth of it
        awaitCredit(peer());
        peer().write(concat(header(FrameKind.MESSAGE, ControlWord.encode(ControlWord.DATA, 0), 100_000),
                new byte[10_000]));
        peer().write(new byte[7]); // and half of nothing in particular
        peer().close();
        receive.verify(TIMEOUT);
        StepVerifier.create(ep.onClose()).verifyComplete();
        long end = System.nanoTime() + TIMEOUT.toNanos();
        while (server.memory().buffers().outstanding() != outstanding && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertThat(server.memory().buffers().outstanding()).as("the half-received message's buffer")
                .isEqualTo(outstanding);
    }

    /** What a conforming peer never sends: a kind the protocol does not have, or a payload on a kind that has none. */
    static Stream<Arguments> framesOutsideTheProtocol() {
        return Stream.of(
                Arguments.of("kind 0", header(0, 1, 0), "malformed frame header"),
                Arguments.of("the kind after the last one", header(FrameKind.HEARTBEAT_ACK + 1, 1, 0),
                        "malformed frame header"),
                Arguments.of("kind 255", header(255, 1, 0), "malformed frame header"),
                Arguments.of("CREDIT with a payload", frame(FrameKind.MESSAGE,
                        ControlWord.encode(ControlWord.CREDIT, 1), new byte[8]), "exceeds its limit of 0"),
                Arguments.of("FLUSH with a payload", frame(FrameKind.FLUSH, 1, new byte[4]), "exceeds its limit of 0"),
                Arguments.of("HEARTBEAT with a payload", frame(FrameKind.HEARTBEAT, 1, new byte[1]),
                        "exceeds its limit of 0"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("framesOutsideTheProtocol")
    void aFrameOutsideTheProtocolEndsItsConnectionAndNoOther(String what, byte[] bad, String why) throws Exception {
        Transport clientTransport = open(TransportConfig.defaults());
        Endpoint healthy = clientTransport.connect(listener.address()).block(TIMEOUT);
        Endpoint healthyServer = accepted.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        assertThat(healthyServer).isNotNull();
        Endpoint ep = rawPeer();
        long outstanding = server.memory().buffers().outstanding();
        StepVerifier broken = StepVerifier.create(ep.receive())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(CreditProtocolException.class)
                        .hasMessageContaining(why))
                .verifyLater();

        peer().write(bad);
        broken.verify(TIMEOUT);
        assertThat(peer().awaitClosed(TIMEOUT)).as("the peer's connection is cut").isTrue();
        StepVerifier.create(ep.onClose()).verifyComplete();
        awaitTrue("the broken connection's ticket is returned", () -> admission().connections() == 1);
        awaitTrue("no buffer left behind", () -> server.memory().buffers().outstanding() == outstanding);

        // The other connection of the same listener goes on.
        assertThat(healthyServer.isDisposed()).isFalse();
        StepVerifier received = StepVerifier.create(healthyServer.receive().take(1)
                        .map(UringAdversarialRequestTest::take))
                .expectNext("still here").expectComplete().verifyLater();
        healthy.send(clientTransport.memory().allocate(16).write("still here".getBytes(StandardCharsets.UTF_8)))
                .block(TIMEOUT);
        received.verify(TIMEOUT);
    }

    private static String take(Buffer b) {
        return b.toUtf8(); // lent by receive(): copied out here
    }
}
