package dev.rivulet.core;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.NotConnectedException;
import dev.rivulet.core.error.Retryable;
import dev.rivulet.testing.NoLeaks;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A connection the library keeps up: reconnected with backoff, failing fast while down, stopped by dispose. */
@ExtendWith(NoLeaks.class)
class LiveConnectionTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Duration MIN = Duration.ofMillis(10);
    private static final Duration MAX = Duration.ofMillis(200);

    private static RivuletServer.BoundServer echo(String address) {
        return RivuletServer.create().bindAddress(address).handle(ep -> ep.send(ep.receive().retain())).bindNow();
    }

    private static String ping(Endpoint ep) {
        return ep.receive().asString().next().zipWith(ep.send("ping").thenReturn(1), (m, x) -> m).block(TIMEOUT);
    }

    @Test
    void aLostConnectionIsMadeAgainAndAnnouncedAsANewEndpoint() {
        List<Endpoint> seen = new CopyOnWriteArrayList<>();
        RivuletServer.BoundServer server = echo("local://live-again");
        // snippet:begin live
        LiveConnection live = RivuletClient.create()
                .remoteAddress("local://live-again")
                .keepConnected(Duration.ofMillis(10), Duration.ofMillis(200)); // backoff: first and longest wait
        live.endpoints().subscribe(seen::add);   // each new connection: set it up here (an interaction session)
        Mono<Endpoint> now = live.endpoint();     // the live one, or NotConnectedException (retryable) at once
        // snippet:end
        try {
            Endpoint first = live.endpoints().next().block(TIMEOUT);
            assertThat(now.block(TIMEOUT)).isSameAs(first);
            assertThat(ping(first)).isEqualTo("ping");

            server.disposeNow(TIMEOUT); // the peer goes away: the connection is lost ...
            StepVerifier.create(first.onClose()).verifyComplete();
            server = echo("local://live-again"); // ... and comes back
            Endpoint second = live.endpoints().filter(ep -> ep != first).next().block(TIMEOUT);
            assertThat(second).isNotSameAs(first);
            assertThat(ping(second)).isEqualTo("ping");
            assertThat(live.endpoint().block(TIMEOUT)).isSameAs(second);
            assertThat(seen).containsExactly(first, second);
        } finally {
            live.dispose();
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void whileThePeerIsAwayRequestsFailAtOnceWithARetryableErrorNamingWhy() {
        LiveConnection live = RivuletClient.create().remoteAddress("local://live-later").keepConnected(MIN, MAX);
        RivuletServer.BoundServer server = null;
        try {
            StepVerifier.create(live.endpoint())
                    .expectErrorSatisfies(e -> assertThat(e).isInstanceOf(NotConnectedException.class)
                            .isInstanceOf(Retryable.class).hasMessageContaining("local://live-later"))
                    .verify(TIMEOUT);
            awaitTrue(() -> live.lastFailure().contains("nobody listens"));
            assertThat(live.isConnected()).isFalse();

            server = echo("local://live-later");
            Endpoint ep = live.endpoints().next().block(TIMEOUT);
            assertThat(ping(ep)).isEqualTo("ping");
            assertThat(live.isConnected()).isTrue();
            assertThat(live.lastFailure()).isEqualTo("connected");
        } finally {
            live.dispose();
            if (server != null) {
                server.disposeNow(TIMEOUT);
            }
        }
    }

    @Test
    void disposeClosesTheEndpointAndStopsReconnecting() {
        RivuletServer.BoundServer server = echo("local://live-stop");
        try {
            LiveConnection live = RivuletClient.create().remoteAddress("local://live-stop").keepConnected(MIN, MAX);
            Endpoint ep = live.endpoints().next().block(TIMEOUT);
            StepVerifier.create(live.disposeGracefully(TIMEOUT)).verifyComplete();
            assertThat(ep.isDisposed()).isTrue();
            StepVerifier.create(live.endpoints()).verifyComplete();
            StepVerifier.create(live.endpoint()).expectError(NotConnectedException.class).verify(TIMEOUT);
            // nothing connects again: the server sees no new connection
            StepVerifier.create(Mono.delay(Duration.ofMillis(300))).expectNextCount(1).verifyComplete();
            awaitTrue(() -> server.connections() == 0);
            assertThat(live.isConnected()).isFalse();
        } finally {
            server.disposeNow(TIMEOUT);
        }
    }

    @Test
    void anAddressGivenAsASupplierIsAskedAgainOnEachAttempt() {
        AtomicReference<String> target = new AtomicReference<>("local://live-move-1");
        RivuletServer.BoundServer first = echo("local://live-move-1");
        RivuletServer.BoundServer second = null;
        LiveConnection live = RivuletClient.create().remoteAddress(target::get).keepConnected(MIN, MAX);
        try {
            Endpoint a = live.endpoints().next().block(TIMEOUT);
            assertThat(a.remoteAddress()).contains("live-move-1");
            second = echo("local://live-move-2");
            target.set("local://live-move-2"); // the peer moves ...
            first.disposeNow(TIMEOUT);           // ... and the old one goes away
            Endpoint b = live.endpoints().filter(ep -> ep != a).next().block(TIMEOUT);
            assertThat(ping(b)).isEqualTo("ping");
            assertThat(live.remoteAddress()).isEqualTo("local://live-move-2");
            assertThat(second.connections()).isEqualTo(1);
        } finally {
            live.dispose();
            first.disposeNow(TIMEOUT);
            if (second != null) {
                second.disposeNow(TIMEOUT);
            }
        }
        StepVerifier.create(RivuletClient.create().remoteAddress(() -> null).connect())
                .expectError(InvalidRequestException.class).verify(TIMEOUT);
    }

    @Test
    void aKeptConnectionNeedsAnAddressAndASaneBackoff() {
        assertThatThrownBy(() -> RivuletClient.create().keepConnected(MIN, MAX))
                .isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> RivuletClient.create().remoteAddress("local://x").keepConnected(MAX, MIN))
                .isInstanceOf(InvalidRequestException.class);
        assertThatThrownBy(() -> RivuletClient.create().remoteAddress("local://x").keepConnected(Duration.ZERO, MAX))
                .isInstanceOf(InvalidRequestException.class);
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) {
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (!condition.getAsBoolean()) {
            assertThat(System.nanoTime()).as("waited too long").isLessThan(deadline);
            java.util.concurrent.locks.LockSupport.parkNanos(5_000_000);
        }
    }
}
