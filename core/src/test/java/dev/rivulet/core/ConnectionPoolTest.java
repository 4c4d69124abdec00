package dev.rivulet.core;

import dev.rivulet.core.error.InsufficientResourcesException;
import dev.rivulet.core.error.Retryable;
import dev.rivulet.testing.NoLeaks;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;

/** Pooled connections as a Reactor Netty user expects of a ConnectionProvider: reuse, limits, eviction, meters. */
@ExtendWith(NoLeaks.class)
class ConnectionPoolTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static RivuletServer.BoundServer echo(String address) {
        return RivuletServer.create().bindAddress(address).handle(ep -> ep.send(ep.receive().retain())).bindNow();
    }

    private static Mono<String> ping(Endpoint ep, String text) {
        return ep.receive().asString().next().zipWith(ep.send(text).thenReturn(1), (m, x) -> m);
    }

    @Test
    void anEndpointIsLentForOneUseAndReusedByTheNext() {
        RivuletServer.BoundServer server = echo("local://pool-reuse");
        Set<Endpoint> used = ConcurrentHashMap.newKeySet();
        // snippet:begin pool
        ConnectionPool pool = RivuletClient.create()
                .remoteAddress("local://pool-reuse")
                .pool(ConnectionPool.Settings.of("storage", 4));
        Flux<String> answers = Flux.range(0, 10)
                .concatMap(i -> pool.withEndpoint(ep -> ping(ep, "ping " + i)));   // lent for the ping, then back
        // snippet:end
        try {
            StepVerifier.create(answers).expectNextCount(10).verifyComplete();
            for (int i = 0; i < 5; i++) {
                used.add(pool.withEndpoint(Mono::just).blockFirst(TIMEOUT));
            }
            assertThat(used).hasSize(1);
            assertThat(server.connections()).isEqualTo(1);
            assertThat(pool.acquired()).isZero();
            assertThat(pool.idle()).isEqualTo(1);
        } finally {
            pool.dispose();
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void callersBeyondTheLimitWaitAtMostTheirNumberAndTheirTime() {
        RivuletServer.BoundServer server = echo("local://pool-limits");
        ConnectionPool pool = RivuletClient.create().remoteAddress("local://pool-limits")
                .pool(ConnectionPool.Settings.of("limits", 2).maxPendingAcquires(1)
                        .acquireTimeout(Duration.ofSeconds(3)));
        try {
            ConnectionPool.Lease a = pool.acquire().block(TIMEOUT);
            ConnectionPool.Lease b = pool.acquire().block(TIMEOUT);
            assertThat(a.endpoint()).isNotSameAs(b.endpoint());
            assertThat(pool.acquired()).isEqualTo(2);

            // one caller may wait and gets the first endpoint given back; of two callers beyond the limit one is
            // refused at once. Which one is reactor-pool's choice: when another thread is draining the pool as the
            // second arrives, the pool culls the oldest waiter instead of the newest.
            Mono<ConnectionPool.Lease> first = pool.acquire().cache();
            first.subscribe(lease -> { }, error -> { });
            awaitTrue(() -> pool.pending() == 1);
            Mono<ConnectionPool.Lease> second = pool.acquire().cache();
            second.subscribe(lease -> { }, error -> { });
            AtomicReference<Mono<ConnectionPool.Lease>> waiter = new AtomicReference<>();
            StepVerifier.create(Mono.firstWithSignal(
                            first.materialize().doOnNext(s -> waiter.compareAndSet(null, second)),
                            second.materialize().doOnNext(s -> waiter.compareAndSet(null, first))))
                    .assertNext(refused -> assertThat(refused.getThrowable())
                            .isInstanceOf(InsufficientResourcesException.class).isInstanceOf(Retryable.class)
                            .hasMessageContaining("callers waiting"))
                    .expectComplete().verify(TIMEOUT);
            assertThat(pool.pending()).isEqualTo(1);
            a.release().block(TIMEOUT);
            ConnectionPool.Lease c = waiter.get().block(TIMEOUT);
            assertThat(c.endpoint()).isSameAs(a.endpoint());

            // nobody gives one back in time
            StepVerifier.create(pool.acquire()).expectErrorSatisfies(e -> assertThat(e)
                    .isInstanceOf(InsufficientResourcesException.class).hasMessageContaining("within"))
                    .verify(TIMEOUT);
            b.release().block(TIMEOUT);
            c.release().block(TIMEOUT);
        } finally {
            pool.dispose();
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void aConnectionThatClosedIsNeverLentAgainAndAnIdleOneIsClosed() {
        RivuletServer.BoundServer server = echo("local://pool-evict");
        ConnectionPool pool = RivuletClient.create().remoteAddress("local://pool-evict")
                .pool(ConnectionPool.Settings.of("evict", 2).maxIdleTime(Duration.ofMillis(200)));
        try {
            Endpoint first = pool.withEndpoint(Mono::just).blockFirst(TIMEOUT);
            server.disposeNow(TIMEOUT); // the peer closes every connection while ours is idle
            StepVerifier.create(first.onClose()).verifyComplete();
            server = echo("local://pool-evict");
            Endpoint second = pool.withEndpoint(ep -> ping(ep, "again").thenReturn(ep)).blockFirst(TIMEOUT);
            assertThat(second).isNotSameAs(first);
            assertThat(second.isDisposed()).isFalse();

            RivuletServer.BoundServer s = server;
            awaitTrue(() -> pool.idle() == 0 && second.isDisposed() && s.connections() == 0);
        } finally {
            pool.dispose();
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void itsMetersCountLentIdleAndWaitingAndGoWithIt() {
        RivuletServer.BoundServer server = echo("local://pool-meters");
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        ConnectionPool pool = RivuletClient.create().remoteAddress("local://pool-meters")
                .pool(ConnectionPool.Settings.of("metered", 2).meterRegistry(registry));
        try {
            ConnectionPool.Lease lease = pool.acquire().block(TIMEOUT);
            assertThat(registry.get("rivulet.pool.connections").tags("state", "acquired", "name", "metered",
                    "remote", "local://pool-meters").gauge().value()).isEqualTo(1.0);
            assertThat(registry.get("rivulet.pool.pending").gauge().value()).isZero();
            lease.release().block(TIMEOUT);
            assertThat(registry.get("rivulet.pool.connections").tags("state", "idle").gauge().value())
                    .isEqualTo(1.0);
            pool.dispose();
            assertThat(registry.find("rivulet.pool.connections").meters()).isEmpty();
            StepVerifier.create(pool.acquire()).expectError().verify(TIMEOUT);
            awaitTrue(() -> server.connections() == 0);
        } finally {
            pool.dispose();
            server.disposeNow(TIMEOUT);
        }
    }

    private static void awaitTrue(BooleanSupplier condition) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited too long").isLessThan(deadline);
            java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
        }
    }
}
