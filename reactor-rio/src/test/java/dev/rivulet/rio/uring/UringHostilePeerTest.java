package dev.rivulet.rio.uring;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.Buffer;
import dev.rivulet.core.memory.BufferPool;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.rio.stream.FrameKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static dev.rivulet.rio.uring.RawStreamPeer.concat;
import static dev.rivulet.rio.uring.RawStreamPeer.frame;
import static dev.rivulet.rio.uring.RawStreamPeer.header;
import static dev.rivulet.rio.uring.RawStreamPeer.request;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * An io_uring listener against peers that passed the handshake and then misbehave, written frame by frame with a
 * {@link RawStreamPeer}: frames the listener never granted room for, announced sizes it must not allocate, requests
 * outside what was granted, a flood of requests whose answers are never read, silence, and a peer that stops
 * reading. Each must end (or hold back) that one connection with a typed error and leave nothing allocated.
 */
@Timeout(90)
class UringHostilePeerTest extends RawPeerHarness {

    private static TransportConfig liveness(Duration heartbeat, Duration peerTimeout, Duration writeTimeout) {
        return TransportConfig.defaults().liveness(new LivenessSettings(heartbeat, peerTimeout, writeTimeout));
    }

    /** Pool buffers handed out and pool memory registered now, to compare after. */
    private record PoolState(long outstanding, long registered) {
        static PoolState of(MemoryDomain memory) {
            BufferPool pool = memory.buffers();
            return new PoolState(pool.outstanding(), pool.registeredBytes());
        }
    }

    // ============================================================================================ frames

    @Test
    void aMessageWithoutCreditEndsTheConnectionWithNothingAllocated() throws Exception {
        listen(TransportConfig.defaults());
        PoolState before = PoolState.of(server.memory());
        Endpoint ep = rawPeer(0);
        // Nobody called receive(): no credit was granted, and a 1 MiB message is announced anyway.
        peer().write(concat(header(FrameKind.MESSAGE, ControlWord.encode(ControlWord.DATA, 0), 1 << 20),
                new byte[4096]));
        assertThat(peer().awaitClosed(TIMEOUT)).as("the peer sees the connection end").isTrue();
        StepVerifier.create(ep.onClose()).expectComplete().verify(TIMEOUT);
        StepVerifier.create(ep.receive()).expectErrorSatisfies(e -> assertThat(e)
                .isInstanceOf(CreditProtocolException.class).hasMessageContaining("without a credit")).verify(TIMEOUT);
        assertThat(PoolState.of(server.memory())).isEqualTo(before);
    }

    @Test
    void anAnnouncedPayloadOverTheLimitEndsTheConnectionWithNothingAllocated() throws Exception {
        listen(TransportConfig.defaults().option("uring.maxMessageSize", String.valueOf(1 << 20)));
        Endpoint ep = rawPeer(0);
        StepVerifier receive = StepVerifier.create(ep.receive())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(CreditProtocolException.class)
                        .hasMessageContaining("exceeds"))
                .verifyLater();
        awaitCredit(peer());
        PoolState before = PoolState.of(server.memory());
        // With a credit, but 64 MiB announced (the limit is 1 MiB): refused from the header alone.
        peer().write(header(FrameKind.MESSAGE, ControlWord.encode(ControlWord.DATA, 0), 64 << 20));
        receive.verify(TIMEOUT);
        assertThat(peer().awaitClosed(TIMEOUT)).isTrue();
        assertThat(PoolState.of(server.memory())).isEqualTo(before);
    }

    @Test
    void aCloseWordCarryingAPayloadIsAProtocolErrorAndLeaksNothing() throws Exception {
        listen(TransportConfig.defaults());
        Endpoint ep = rawPeer(0);
        StepVerifier receive = StepVerifier.create(ep.receive())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(CreditProtocolException.class))
                .verifyLater();
        awaitCredit(peer());
        PoolState before = PoolState.of(server.memory());
        peer().write(frame(FrameKind.MESSAGE, ControlWord.encode(ControlWord.CLOSE, 0), new byte[512]));
        receive.verify(TIMEOUT);
        assertThat(peer().awaitClosed(TIMEOUT)).isTrue();
        assertThat(PoolState.of(server.memory())).isEqualTo(before);
    }

    /** Connections ended for protocol errors give back their socket, ring slots and buffers: descriptors come back. */
    @Test
    void brokenConnectionsLeaveNoDescriptorBehind() throws Exception {
        listen(TransportConfig.defaults());
        byte[] violation = header(FrameKind.MESSAGE, ControlWord.encode(ControlWord.DATA, 0), 100);
        rawPeer(0);
        peer().write(violation); // warm-up: whatever the first connection opens once is not counted
        assertThat(peer().awaitClosed(TIMEOUT)).isTrue();
        awaitTrue("the first connection to be forgotten", () -> admission().connections() == 0);
        long before = openDescriptors();
        for (int i = 0; i < 20; i++) {
            rawPeer(0);
            peer().write(violation);
            assertThat(peer().awaitClosed(TIMEOUT)).isTrue();
            peer().close();
        }
        awaitTrue("every connection to be forgotten", () -> admission().connections() == 0);
        awaitTrue("the descriptors to go back to " + before, () -> openDescriptors() <= before);
        assertThat(PoolState.of(server.memory()).outstanding()).isZero();
    }

    // ============================================================================================ one-sided

    @Test
    void putsOutsideTheWindowOrWithAForgedKeyAreRefusedAndLeaveMemoryUntouched() throws Exception {
        listen(TransportConfig.defaults());
        Endpoint ep = rawPeer(0);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment bytes = arena.allocate(4096, 4096);
            bytes.fill((byte) 0x11);
            MemoryRegion region = server.memory().register(bytes, Access.REMOTE_WRITE, Access.REMOTE_READ);
            RemoteMemory window = ep.grant(region.slice(1024, 1024), Access.REMOTE_WRITE, Access.REMOTE_READ)
                    .remote();
            byte[] refusedData = new byte[128];
            Arrays.fill(refusedData, (byte) 0x33);
            byte[] goodData = new byte[1024];
            Arrays.fill(goodData, (byte) 0x22);

            // 1: reaches 64 bytes before the window; 2: a forged key; 3: a get with a forged key; 4: within it
            peer().write(frame(FrameKind.PUT, 1, concat(request(window.address() - 64, window.key(), 128),
                    refusedData)));
            peer().write(frame(FrameKind.PUT, 2, concat(request(window.address(), window.key() ^ 0x40, 128),
                    refusedData)));
            peer().write(frame(FrameKind.GET, 3, request(window.address(), window.key() ^ 1, 64)));
            peer().write(frame(FrameKind.PUT, 4, concat(request(window.address(), window.key(), 1024), goodData)));
            for (long id = 1; id <= 3; id++) {
                expectRefused(id);
            }
            RawStreamPeer.Frame ack = peer().readSignificant(TIMEOUT);
            assertThat(ack.kind()).isEqualTo(FrameKind.RMA_ACK);
            assertThat(ack.tag()).isEqualTo(4);
            for (int i = 0; i < 4096; i++) {
                byte expected = i >= 1024 && i < 2048 ? (byte) 0x22 : (byte) 0x11;
                assertThat(bytes.get(ValueLayout.JAVA_BYTE, i)).as("byte %d", i).isEqualTo(expected);
            }
            // the connection is still fine after the refusals
            peer().write(frame(FrameKind.PUT, 5, concat(request(window.address(), window.key(), 1024), goodData)));
            assertThat(peer().readSignificant(TIMEOUT).kind()).isEqualTo(FrameKind.RMA_ACK);
            ep.dispose();
            StepVerifier.create(ep.onClose()).expectComplete().verify(TIMEOUT);
            region.close();
        }
    }

    /**
     * A peer that floods get and flush requests and never reads the answers: the listener stops reading once its
     * answers back up (a bounded number of them, and of bytes copied for them), so the flood stalls in TCP instead
     * of growing the listener's memory, and the write timeout ends that connection, releasing every pin on the
     * granted memory and every buffer.
     */
    @Test
    void requestsFromAPeerThatNeverReadsAreHeldBackByTcp() throws Exception {
        listen(liveness(Duration.ofMillis(500), Duration.ofSeconds(10), Duration.ofSeconds(3)));
        Endpoint ep = rawPeer(4096);
        try (Arena arena = Arena.ofShared()) {
            MemoryRegion region = server.memory().register(arena.allocate(1 << 20, 4096), Access.REMOTE_READ,
                    Access.REMOTE_WRITE, Access.REMOTE_ATOMIC);
            RemoteMemory window = ep.grant(region.slice(), Access.REMOTE_READ).remote();
            PoolState before = PoolState.of(server.memory());
            StepVerifier closed = StepVerifier.create(ep.receive())
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(ConnectionLostException.class))
                    .verifyLater();
            byte[] unit = concat(frame(FrameKind.GET, 7, request(window.address(), window.key(), 64 << 10)),
                    header(FrameKind.FLUSH, 8, 0));
            int times = 10_000_000; // 720 MB of requests asking for 640 GB of answers
            long taken = peer().writeUntilStalled(unit, times, Duration.ofSeconds(1));
            // What went in before the stall is the listener's staging buffer and backlog, plus the two kernels'
            // socket buffers (a few MB on loopback).
            assertThat(taken).as("bytes of requests the listener took before it stopped reading")
                    .isLessThan((long) unit.length * times / 10);
            // Large answers are copied out of the window into pooled buffers until 4 MiB of them wait to be
            // written; then answering, and so reading, waits.
            PoolState during = PoolState.of(server.memory());
            assertThat(during.registered() - before.registered()).as("pool memory held for answers")
                    .isLessThanOrEqualTo(dev.rivulet.rio.stream.StreamWire.MAX_RESPONSE_BYTES + (1 << 20));
            closed.verify(TIMEOUT);
            long end = System.nanoTime() + TIMEOUT.toNanos();
            while ((region.pins() > 0 || server.memory().buffers().outstanding() > before.outstanding())
                    && System.nanoTime() < end) {
                Thread.sleep(10); // the write the peer never took completes (with an error) after the reset
            }
            assertThat(region.pins()).as("pins left on the granted memory").isZero();
            assertThat(PoolState.of(server.memory()).outstanding()).as("every answer's buffer given back")
                    .isEqualTo(before.outstanding());
            region.close();
        }
    }

    // ============================================================================================ liveness

    @Test
    void heartbeatsKeepAnIdleConnectionAlivePastThePeerTimeout() throws Exception {
        TransportConfig config = liveness(Duration.ofMillis(200), Duration.ofMillis(1000), Duration.ofSeconds(5));
        listen(config);
        Transport clientTransport = open(config);
        Endpoint client = clientTransport.connect(listener.address()).block(TIMEOUT);
        Endpoint ep = accepted.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        Thread.sleep(3_000); // three peer timeouts without a message
        assertThat(client.isDisposed()).isFalse();
        StepVerifier received = StepVerifier.create(ep.receive().asString().take(1))
                .expectNext("still here").expectComplete().verifyLater();
        client.send(client.memory().allocate(16).write("still here".getBytes(StandardCharsets.UTF_8)))
                .block(TIMEOUT);
        received.verify(TIMEOUT);
    }

    @Test
    void aPeerThatGoesSilentIsLostWithinThePeerTimeout() throws Exception {
        listen(liveness(Duration.ofMillis(200), Duration.ofMillis(1000), Duration.ofSeconds(5)));
        Endpoint ep = rawPeer(0);
        long start = System.nanoTime();
        // The raw peer answers no heartbeat and sends nothing.
        StepVerifier.create(ep.receive())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(ConnectionLostException.class)
                        .hasMessageContaining("no sign of life"))
                .verify(TIMEOUT);
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        assertThat(tookMillis).as("lost after the peer timeout, not before").isGreaterThanOrEqualTo(900);
        assertThat(tookMillis).as("within the peer timeout and a few checks").isLessThan(10_000);
        assertThat(peer().awaitClosed(TIMEOUT)).isTrue();
    }

    @Test
    void aPeerThatStopsReadingFailsItsOwnConnectionAndNoOther() throws Exception {
        TransportConfig config = liveness(Duration.ofMillis(500), Duration.ofSeconds(20), Duration.ofSeconds(1));
        listen(config);
        Endpoint stuck = rawPeer(4096);
        peer().credit(1_000);
        Transport clientTransport = open(config);
        Endpoint healthy = clientTransport.connect(listener.address()).block(TIMEOUT);
        Endpoint healthyServer = accepted.poll(TIMEOUT.toSeconds(), TimeUnit.SECONDS);

        Flux<Buffer> large = Flux.range(0, 64).map(i -> stuck.memory().allocate(1 << 20).length(1 << 20));
        StepVerifier.create(stuck.send(large))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(ConnectionLostException.class))
                .verify(TIMEOUT);
        StepVerifier.create(stuck.onClose()).expectComplete().verify(TIMEOUT);

        StepVerifier received = StepVerifier.create(healthyServer.receive().take(100)
                .count()).expectNext(100L).expectComplete().verifyLater();
        StepVerifier.create(healthy.send(Flux.range(0, 100).map(i -> healthy.memory().allocate(64).length(64))))
                .expectComplete().verify(TIMEOUT);
        received.verify(TIMEOUT);
    }

    /** The write timeout is what ends such a connection (not the peer timeout, which the test set far away). */
    @Test
    void theWriteTimeoutNamesItself() throws Exception {
        listen(liveness(Duration.ofMillis(500), Duration.ofSeconds(20), Duration.ofSeconds(1)));
        Endpoint stuck = rawPeer(4096);
        peer().credit(1_000);
        Flux<Buffer> large = Flux.range(0, 64).map(i -> stuck.memory().allocate(1 << 20).length(1 << 20));
        StepVerifier.create(stuck.send(large))
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(ConnectionLostException.class)
                        .hasMessageContaining("has not taken a write"))
                .verify(TIMEOUT);
    }
}
