package dev.rivulet.core.engine;

import dev.rivulet.core.CloseReason;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Operation;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.error.InvalidRequestException;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Context propagation to completion-side code, and the {@code rivulet.*} meters. */
class ObservabilityTest {

    @Test
    void traceIdWrittenWithContextWriteIsVisibleWhereTheCompletionIsHandled() {
        List<String> seen = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        List<Long> nanos = new CopyOnWriteArrayList<>();
        RivuletServer.BoundServer server = RivuletServer.create().bindAddress("local://ctx")
                .handle(ep -> ep.receive().then())
                .bindNow();
        Endpoint client = RivuletClient.create().remoteAddress("local://ctx")
                .config(c -> c.observer((op, bytes, took, err, ctx) -> {
                    if (op == Operation.SEND) {
                        nanos.add(took);
                        seen.add(ctx.getOrDefault("traceId", "none"));
                        threads.add(Thread.currentThread().getName());
                    }
                }))
                .connectNow();
        try {
            StepVerifier.create(client.send(client.memory().allocate(8)).contextWrite(c -> c.put("traceId", "t-42")))
                    .verifyComplete();
            StepVerifier.create(client.send(Flux.range(0, 3).map(i -> client.memory().allocate(8)))
                            .contextWrite(c -> c.put("traceId", "t-stream")))
                    .verifyComplete();
            assertThat(seen).containsExactly("t-42", "t-stream", "t-stream", "t-stream");
            assertThat(threads).allMatch(t -> t.startsWith("local-") && t.contains("-progress-"));
            // An observer makes the engine time its ops (they are not timed when nobody asks).
            assertThat(nanos).hasSize(4).allMatch(t -> t > 0);
        } finally {
            client.dispose();
            server.dispose();
        }
    }

    @Test
    void metersAreNamedRivuletAndCount() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        RivuletServer.BoundServer server = RivuletServer.create().bindAddress("local://metrics")
                .handle(ep -> ep.receive().then())
                .bindNow();
        Endpoint client = RivuletClient.create().remoteAddress("local://metrics").metrics(registry).connectNow();
        try {
            int n = 1_000;
            StepVerifier.create(client.send(Flux.range(0, n).map(i -> client.memory().allocate(100))))
                    .verifyComplete();
            assertThat(registry.get("rivulet.operations.posted").tags("transport", "local", "op", "send")
                    .functionCounter().count()).isEqualTo(n);
            assertThat(registry.get("rivulet.operations.completed").tags("op", "send", "outcome", "success")
                    .functionCounter().count()).isEqualTo(n);
            assertThat(registry.get("rivulet.bytes.sent").functionCounter().count()).isEqualTo(100.0 * n);
            assertThat(registry.get("rivulet.operation.latency").tags("op", "send").timer().count()).isEqualTo(n);
            assertThat(registry.get("rivulet.operation.latency").tags("op", "send").timer()
                    .totalTime(TimeUnit.NANOSECONDS)).isPositive();
            assertThat(registry.get("rivulet.queue.retries").functionCounter().count()).isGreaterThanOrEqualTo(0);
            assertThat(registry.get("rivulet.credit.stalls").functionTimer().count()).isGreaterThanOrEqualTo(0);
            assertThat(registry.get("rivulet.inflight").gauge().value()).isZero();
            assertThat(registry.get("rivulet.pending.depth").gauge().value()).isZero();
            assertThat(registry.get("rivulet.progress.busy.ratio").gauge().value()).isBetween(0.0, 1.0);
            assertThat(registry.getMeters()).allMatch(m -> m.getId().getName().startsWith("rivulet."));
        } finally {
            client.dispose();
            server.dispose();
        }
    }

    @Test
    void coalescedSendsNobodyTimesAreCountedOncePerFrameAndExactly() {
        // No registry while they go: the sends are untimed, so a coalesced frame's are counted together.
        Transport transport = Transports.open("local", TransportConfig.defaults());
        try {
            var listener = transport.bind("local://metrics-untimed").block();
            Endpoint client = transport.connect(listener.address()).block(Duration.ofSeconds(10));
            Endpoint server = listener.accepted().blockFirst(Duration.ofSeconds(10));
            server.receive().subscribe(b -> { });
            int n = 5_000;
            StepVerifier.create(client.send(Flux.range(0, n).map(i -> client.memory().allocate(100))))
                    .verifyComplete();
            assertThat(client.stats().block(Duration.ofSeconds(10)).coalescedFrames()).as("frames coalesced")
                    .isPositive();

            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            transport.metrics().bindTo(registry);
            assertThat(registry.get("rivulet.operations.posted").tags("op", "send").functionCounter().count())
                    .isEqualTo(n);
            assertThat(registry.get("rivulet.operations.completed").tags("op", "send", "outcome", "success")
                    .functionCounter().count()).isEqualTo(n);
            assertThat(registry.get("rivulet.bytes.sent").functionCounter().count()).isEqualTo(100.0 * n);
            assertThat(registry.get("rivulet.inflight").gauge().value()).isZero();
            assertThat(registry.get("rivulet.pending.depth").gauge().value()).isZero();
        } finally {
            transport.dispose();
        }
    }

    @Test
    void severalProgressThreadsShareEndpoints() {
        TransportConfig cfg = TransportConfig.defaults().progressThreads(2);
        RivuletServer.BoundServer server = RivuletServer.create().bindAddress("local://threads").config(c -> cfg)
                .handle(ep -> ep.send(ep.receive().retain()))
                .bindNow();
        try {
            Flux.range(0, 4).flatMap(i -> RivuletClient.create().remoteAddress("local://threads").connect()
                            .flatMap(ep -> {
                                Mono<Long> echoes = ep.receive().take(100).count();
                                return echoes.zipWith(ep.send(Flux.range(0, 100).map(j -> ep.memory().allocate(32)))
                                        .thenReturn(1), (c, x) -> c).doFinally(s -> ep.dispose());
                            }))
                    .as(StepVerifier::create)
                    .expectNext(100L, 100L, 100L, 100L)
                    .verifyComplete();
        } finally {
            server.dispose();
        }
    }

    @Test
    void twoTransportsOnOneRegistryAreToldApartAndTheirMetersGoWithThem() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Transport a = Transports.open("local", TransportConfig.defaults().name("orders").meterRegistry(registry));
        Transport b = Transports.open("local", TransportConfig.defaults().name("billing").meterRegistry(registry));
        try {
            assertThat(a.id()).isEqualTo("orders");
            assertThat(registry.find("rivulet.inflight").tags("name", "orders").gauge()).isNotNull();
            assertThat(registry.find("rivulet.inflight").tags("name", "billing").gauge()).isNotNull();
            assertThat(registry.get("rivulet.endpoints.open").tags("name", "orders").gauge().value()).isZero();
            assertThatThrownBy(() -> Transports.open("local",
                    TransportConfig.defaults().name("orders").meterRegistry(registry)))
                    .as("a second transport of the same name would be silently dropped by Micrometer")
                    .isInstanceOf(InvalidRequestException.class).hasMessageContaining("orders");
            a.dispose();
            assertThat(registry.find("rivulet.inflight").tags("name", "orders").gauge()).isNull();
            assertThat(registry.getMeters()).allMatch(m -> "billing".equals(m.getId().getTag("name")));
        } finally {
            a.dispose();
            b.dispose();
        }
        assertThat(registry.getMeters()).isEmpty();
    }

    @Test
    void endpointMetersCountOpenEndpointsAndWhyTheyClosed() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Transport t = Transports.open("local", TransportConfig.defaults().name("ends").meterRegistry(registry));
        try {
            RivuletServer.BoundServer server = RivuletServer.create().runOn(t).bindAddress("local://ends")
                    .handle(ep -> ep.receive().then()).bindNow();
            Endpoint first = RivuletClient.create().runOn(t).remoteAddress("local://ends").connectNow();
            Endpoint second = RivuletClient.create().runOn(t).remoteAddress("local://ends").connectNow();
            assertThat(registry.get("rivulet.endpoints.open").gauge().value()).isEqualTo(4.0);
            first.dispose();
            StepVerifier.create(first.closeReason().map(CloseReason::kind)).expectNext(CloseReason.Kind.LOCAL)
                    .verifyComplete();
            server.disposeNow(Duration.ofSeconds(10));
            StepVerifier.create(second.closeReason().map(CloseReason::kind)).expectNext(CloseReason.Kind.PEER)
                    .verifyComplete();
            assertThat(registry.get("rivulet.endpoints.open").gauge().value()).isZero();
            assertThat(registry.get("rivulet.endpoints.closed").tags("reason", "local").functionCounter().count())
                    .as("the first client, and the server's side of the second").isEqualTo(2.0);
            assertThat(registry.get("rivulet.endpoints.closed").tags("reason", "peer").functionCounter().count())
                    .as("the server's side of the first, and the second client").isEqualTo(2.0);
            assertThat(registry.get("rivulet.endpoints.closed").tags("reason", "failure").functionCounter().count())
                    .isZero();
        } finally {
            t.dispose();
        }
    }

    @Test
    void configuringAClientThatRunsOnAGivenTransportIsAnErrorNotSilence() {
        Transport t = Transports.open("local", TransportConfig.defaults());
        try {
            RivuletClient onT = RivuletClient.create().runOn(t);
            assertThatThrownBy(() -> onT.metrics(new SimpleMeterRegistry()))
                    .isInstanceOf(InvalidRequestException.class).hasMessageContaining("configure that transport");
            assertThatThrownBy(() -> onT.config(c -> c.sendQueueDepth(4)))
                    .isInstanceOf(InvalidRequestException.class);
            RivuletClient configured = RivuletClient.create().config(c -> c.sendQueueDepth(4));
            assertThatThrownBy(() -> configured.runOn(t)).isInstanceOf(InvalidRequestException.class);
            RivuletServer server = RivuletServer.create().runOn(t);
            assertThatThrownBy(() -> server.config(c -> c)).isInstanceOf(InvalidRequestException.class);
        } finally {
            t.dispose();
        }
    }
}
