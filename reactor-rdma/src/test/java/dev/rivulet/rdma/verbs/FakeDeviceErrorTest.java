package dev.rivulet.rdma.verbs;

import dev.rivulet.conformance.Pair;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.RemoteAccessException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.memory.RemoteMemory;
import dev.rivulet.core.progress.IdleStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Signal;

import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a queue pair in the error state does to the operations queued on it, on the software device: the requests
 * before the failed one succeeded (the queue completes in order), the failed one carries its own error, and every
 * request behind it, posted or not, fails with the cause that closes the endpoint.
 */
class FakeDeviceErrorTest {

    private FakeVerbsTransport serverTransport;
    private FakeVerbsTransport clientTransport;
    private Pair pair;
    private Arena arena;

    @BeforeEach
    void connect() {
        FakeVerbs.assumeBuilt();
        TransportConfig config = TransportConfig.defaults().option("verbs.signalInterval", "64")
                .idleStrategy(() -> IdleStrategy.backoff(100, 10, 10_000, 200_000));
        serverTransport = new FakeVerbsTransport(config);
        clientTransport = new FakeVerbsTransport(config);
        pair = Pair.connect(serverTransport, clientTransport, "fakeverbs://errors-" + System.nanoTime());
        arena = Arena.ofShared();
    }

    @AfterEach
    void close() {
        if (pair != null) {
            pair.client().dispose();
            pair.server().dispose();
            pair.listener().dispose();
            serverTransport.dispose();
            clientTransport.dispose();
            arena.close();
        }
    }

    @Test
    void aRefusedPutInTheMiddleOfAChainSplitsItIntoDoneRefusedAndLost() {
        MemoryRegion target = pair.server().memory().register(arena.allocate(4096, 64), Access.REMOTE_WRITE);
        RemoteMemory good = pair.server().grant(target.slice(), Access.REMOTE_WRITE).remote();
        RemoteMemory forged = new RemoteMemory(good.address(), good.length(), good.key() ^ 0x5a5a,
                good.providerBytes());
        MemoryRegion local = pair.client().memory().register(arena.allocate(4096, 64));
        local.segment().fill((byte) 7);
        // Issued together from one thread: they reach the wire in this order and go out as one chain.
        List<Mono<Void>> puts = List.of(
                pair.client().put(local.slice(0, 64), good.slice(0, 64)),
                pair.client().put(local.slice(64, 64), good.slice(64, 64)),
                pair.client().put(local.slice(0, 64), forged.slice(128, 64)),
                pair.client().put(local.slice(192, 64), good.slice(192, 64)),
                pair.client().put(local.slice(256, 64), good.slice(256, 64)));
        List<Signal<Void>> outcomes = Flux.fromIterable(puts).flatMapSequential(p -> p.materialize(), 5)
                .collectList().block(Duration.ofSeconds(10));
        assertThat(outcomes).hasSize(5);
        assertThat(outcomes.get(0).isOnComplete()).isTrue();
        assertThat(outcomes.get(1).isOnComplete()).isTrue();
        assertThat(outcomes.get(2).getThrowable()).isInstanceOf(RemoteAccessException.class);
        assertThat(outcomes.get(3).getThrowable()).isInstanceOf(ConnectionLostException.class)
                .hasMessageContaining("error state after a refused put");
        assertThat(outcomes.get(4).getThrowable()).isInstanceOf(ConnectionLostException.class);
        assertThat(target.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 64)).isEqualTo((byte) 7);
        assertThat(target.segment().get(java.lang.foreign.ValueLayout.JAVA_BYTE, 200)).as("never written")
                .isZero();
        // Both ends close: the refusal ended the connection.
        pair.client().onClose().block(Duration.ofSeconds(10));
        pair.server().onClose().block(Duration.ofSeconds(10));
    }

    @Test
    void aSendTheEndpointHandsOverWhileTheQueueIsFullWaitsInThePendingFifo() {
        // More sends than the send queue holds, none signalled until the end of each chain: all arrive in order.
        long n = 2_000;
        Flux<dev.rivulet.core.memory.Buffer> messages = Flux.range(0, (int) n)
                .map(i -> dev.rivulet.conformance.Messages.make(pair.client().memory(), i, 24));
        Long received = pair.server().receive().take(n).count()
                .zipWith(pair.client().send(messages).thenReturn(1), (c, s) -> c).block(Duration.ofSeconds(20));
        assertThat(received).isEqualTo(n);
    }
}
