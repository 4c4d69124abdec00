package dev.rivulet.core;

import dev.rivulet.core.error.ConnectTimeoutException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.testing.NoLeaks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What a Reactor Netty user expects of clients and servers: shared resources, failures that stay local, shutdown. */
@ExtendWith(NoLeaks.class)
class ClientServerTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @Test
    void clientsAndServersWithoutATransportOfTheirOwnShareOne() {
        RivuletServer.BoundServer server = RivuletServer.create().bindAddress("local://shared")
                .handle(ep -> ep.send(ep.receive().retain())).bindNow();
        try {
            Endpoint a = RivuletClient.create().remoteAddress("local://shared").connectNow();
            Endpoint b = RivuletClient.create().remoteAddress("local://shared").connectNow();
            Transport shared = Transports.shared("local://anything");
            assertThat(server.transport()).isSameAs(shared);
            assertThat(a.memory()).isSameAs(shared.memory()).isSameAs(b.memory());
            StepVerifier.create(a.receive().asString().next().zipWith(a.send("ping").thenReturn(1), (m, x) -> m))
                    .expectNext("ping").verifyComplete();
            a.dispose();
            b.dispose();
            assertThat(shared.isDisposed()).as("a shared transport outlives its endpoints").isFalse();
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void disposingTheSharedTransportsClosesTheirEndpointsAndTheNextUseOpensNewOnes() {
        RivuletServer.BoundServer server = RivuletServer.create().bindAddress("local://shared-reopen")
                .handle(ep -> ep.receive().then()).bindNow();
        Endpoint ep = RivuletClient.create().remoteAddress("local://shared-reopen").connectNow();
        Transport before = Transports.shared("local://x");
        Transports.disposeShared();
        StepVerifier.create(ep.onClose()).verifyComplete();
        assertThat(server.isDisposed()).isTrue();
        Transport after = Transports.shared("local://x");
        assertThat(after).isNotSameAs(before);
        assertThat(after.isDisposed()).isFalse();
    }

    @Test
    void aClientWithAConfigurationOfItsOwnGetsATransportThatGoesWithItsEndpoint() {
        RivuletServer.BoundServer server = RivuletServer.create().bindAddress("local://own")
                .handle(ep -> ep.receive().then()).bindNow();
        try {
            Endpoint ep = RivuletClient.create().remoteAddress("local://own")
                    .config(c -> c.name("own-client").sendQueueDepth(16)).connectNow();
            assertThat(ep.capabilities().sendQueueDepth()).isEqualTo(16);
            assertThat(ep.memory()).isNotSameAs(Transports.shared("local://own").memory());
            ep.dispose();
            StepVerifier.create(ep.onClose()).verifyComplete();
            // the transport closes after its endpoint, off the polling thread
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!ep.memory().isClosed() && System.nanoTime() < deadline) {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
            assertThat(ep.memory().isClosed()).isTrue();
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void aConnectThatTakesTooLongFailsWithATypedRetryableError() {
        // local:// connects at once, so the bound is tested on a transport that never answers: one whose connect
        // is a Mono that never completes.
        Transport silent = new NeverConnecting(Transports.open("local", TransportConfig.defaults()));
        try {
            StepVerifier.create(RivuletClient.create().runOn(silent).remoteAddress("local://nobody")
                            .connectTimeout(Duration.ofMillis(100)).connect())
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(ConnectTimeoutException.class)
                            .hasMessageContaining("local://nobody"))
                    .verify(TIMEOUT);
            assertThat(new ConnectTimeoutException("x").isRetryable()).isTrue();
        } finally {
            silent.dispose();
        }
        assertThatThrownBy(() -> RivuletClient.create().connectTimeout(Duration.ZERO))
                .isInstanceOf(InvalidRequestException.class);
        StepVerifier.create(RivuletClient.create().connect()).expectError(InvalidRequestException.class)
                .verify(TIMEOUT);
        StepVerifier.create(RivuletClient.create().remoteAddress("nothing://here").connect())
                .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(InvalidRequestException.class)
                        .hasMessageContaining("local"))
                .verify(TIMEOUT);
    }

    @Test
    void aHandlerThatFailsInAnyWayCostsOneEndpointAndTheServerKeepsAccepting() {
        AtomicInteger calls = new AtomicInteger();
        RivuletServer.BoundServer server = RivuletServer.create().bindAddress("local://bad-handlers")
                .handle(ep -> switch (calls.incrementAndGet()) {
                    case 1 -> throw new IllegalStateException("thrown");
                    case 2 -> null;
                    case 3 -> Mono.error(new IllegalStateException("signalled"));
                    default -> ep.send(ep.receive().retain());
                })
                .bindNow();
        try {
            for (int i = 0; i < 3; i++) {
                Endpoint doomed = RivuletClient.create().remoteAddress("local://bad-handlers").connectNow();
                StepVerifier.create(doomed.closeReason().map(CloseReason::kind)).expectNext(CloseReason.Kind.PEER)
                        .verifyComplete();
            }
            Endpoint fine = RivuletClient.create().remoteAddress("local://bad-handlers").connectNow();
            StepVerifier.create(fine.receive().asString().next().zipWith(fine.send("still here").thenReturn(1),
                    (m, x) -> m)).expectNext("still here").verifyComplete();
            assertThat(server.isDisposed()).isFalse();
            fine.dispose();
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void aListenerThatFailsClosesItsServerVisibly() {
        Sinks.Many<Endpoint> accepted = Sinks.many().unicast().onBackpressureBuffer();
        Transport local = Transports.open("local", TransportConfig.defaults());
        FailingListenerTransport t = new FailingListenerTransport(local, accepted);
        try {
            RivuletServer.BoundServer server = RivuletServer.create().runOn(t).bindAddress("local://failing")
                    .bindNow();
            assertThat(server.isDisposed()).isFalse();
            accepted.tryEmitError(new ResourceClosedException("the listening socket broke"));
            assertThat(server.isDisposed()).isTrue();
        } finally {
            local.dispose();
        }
    }

    @Test
    void aGracefulServerShutdownLetsSendsInFlightFinish() {
        Sinks.One<Endpoint> serving = Sinks.one();
        RivuletServer.BoundServer server = RivuletServer.create().bindAddress("local://graceful-server")
                .doOnConnection(serving::tryEmitValue)
                .handle(ep -> ep.send(Flux.range(0, 200).map(i -> ep.memory().allocate(16))))
                .bindNow();
        Endpoint client = RivuletClient.create().remoteAddress("local://graceful-server").connectNow();
        serving.asMono().block(TIMEOUT);
        // the client reads slowly: the server's stream is still going when the shutdown starts
        Mono<Long> read = client.receive().limitRate(4).delayElements(Duration.ofMillis(1)).count();
        StepVerifier.create(read.zipWith(server.disposeGracefully(TIMEOUT).thenReturn(1), (n, x) -> n))
                .expectNext(200L).verifyComplete();
        assertThat(server.isDisposed()).isTrue();
        StepVerifier.create(client.closeReason().map(CloseReason::kind)).expectNext(CloseReason.Kind.PEER)
                .verifyComplete();
        StepVerifier.create(RivuletClient.create().remoteAddress("local://graceful-server").connect())
                .expectError().verify(TIMEOUT);
    }

    /** A transport whose connect never answers (and that forwards everything else). */
    private static final class NeverConnecting extends ForwardingTransport {
        NeverConnecting(Transport t) {
            super(t);
        }

        @Override
        public Mono<Endpoint> connect(String address) {
            return Mono.never();
        }
    }

    /** A transport whose listener's accept stream is the given sink. */
    private static final class FailingListenerTransport extends ForwardingTransport {
        private final Sinks.Many<Endpoint> accepted;

        FailingListenerTransport(Transport t, Sinks.Many<Endpoint> accepted) {
            super(t);
            this.accepted = accepted;
        }

        @Override
        public Mono<Listener> bind(String address) {
            Sinks.Empty<Void> disposed = Sinks.empty();
            return Mono.just(new Listener() {
                @Override
                public String address() {
                    return address;
                }

                @Override
                public Flux<Endpoint> accepted() {
                    return accepted.asFlux();
                }

                @Override
                public Mono<Void> onDispose() {
                    return disposed.asMono();
                }

                @Override
                public void dispose() {
                    disposed.tryEmitEmpty();
                }

                @Override
                public boolean isDisposed() {
                    return disposed.scan(reactor.core.Scannable.Attr.TERMINATED) == Boolean.TRUE;
                }
            });
        }
    }

    /** Forwards to a real transport; the tests above override the one call they need to misbehave. */
    private abstract static class ForwardingTransport implements Transport {
        final Transport t;

        ForwardingTransport(Transport t) {
            this.t = t;
        }

        @Override
        public String name() {
            return t.name();
        }

        @Override
        public String id() {
            return t.id();
        }

        @Override
        public Capabilities capabilities() {
            return t.capabilities();
        }

        @Override
        public dev.rivulet.core.memory.MemoryDomain memory() {
            return t.memory();
        }

        @Override
        public Mono<Endpoint> connect(String address) {
            return t.connect(address);
        }

        @Override
        public Mono<Listener> bind(String address) {
            return t.bind(address);
        }

        @Override
        public reactor.core.scheduler.Scheduler scheduler() {
            return t.scheduler();
        }

        @Override
        public io.micrometer.core.instrument.binder.MeterBinder metrics() {
            return t.metrics();
        }

        @Override
        public Mono<Void> onDispose() {
            return t.onDispose();
        }

        @Override
        public Mono<Void> disposeLater() {
            return t.disposeLater();
        }

        @Override
        public Mono<Void> disposeGracefully(Duration timeout) {
            return t.disposeGracefully(timeout);
        }

        @Override
        public void dispose() {
            t.dispose();
        }

        @Override
        public boolean isDisposed() {
            return t.isDisposed();
        }
    }
}
