package dev.rivulet.core;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.testing.NoLeaks;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import reactor.test.StepVerifier;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Configured shared resources, as Reactor Netty users know them from {@code LoopResources}: a group of clients and
 * servers shares one transport per kind of address with the group's configuration, and the JVM's shared transports
 * take a configuration of their own.
 */
@ExtendWith(NoLeaks.class)
class TransportResourcesTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    @AfterEach
    void sharedTransportsAsBefore() {
        Transports.disposeShared();
        Transports.configureShared(c -> c);
    }

    @Test
    void clientsAndServersOnTheSameResourcesShareOneConfiguredTransportWithMetrics() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        // snippet:begin group
        TransportResources group = TransportResources.create("orders", c -> c
                .sendQueueDepth(16)
                .meterRegistry(registry));
        // snippet:end
        try {
            RivuletServer.BoundServer server = RivuletServer.create().runOn(group).bindAddress("local://res-orders")
                    .handle(ep -> ep.send(ep.receive().retain())).bindNow();
            // snippet:begin runOn
            Endpoint a = RivuletClient.create().runOn(group).remoteAddress("local://res-orders").connectNow();
            Endpoint b = RivuletClient.create().runOn(group).remoteAddress("local://res-orders").connectNow();
            // snippet:end
            Transport t = group.forAddress("local://elsewhere");
            assertThat(server.transport()).isSameAs(t);
            assertThat(a.memory()).isSameAs(t.memory()).isSameAs(b.memory());
            assertThat(a.memory()).isNotSameAs(Transports.shared("local://res-orders").memory());
            assertThat(a.capabilities().sendQueueDepth()).isEqualTo(16);
            assertThat(t.id()).startsWith("orders-");
            StepVerifier.create(a.receive().asString().next().zipWith(a.send("ping").thenReturn(1), (m, x) -> m))
                    .expectNext("ping").verifyComplete();
            assertThat(registry.find("rivulet.bytes.sent").meters()).as("the group's meters").isNotEmpty();

            a.dispose();
            server.disposeNow(TIMEOUT);
            assertThat(t.isDisposed()).as("the group's transport outlives its endpoints and servers").isFalse();
            assertThat(group.isInUse()).isTrue();

            group.dispose();
            StepVerifier.create(b.onClose()).verifyComplete();
            assertThat(t.isDisposed()).isTrue();
            assertThat(group.isDisposed()).isTrue();
            StepVerifier.create(RivuletClient.create().runOn(group).remoteAddress("local://res-orders").connect())
                    .expectError(ResourceClosedException.class).verify(TIMEOUT);
        } finally {
            group.dispose();
        }
    }

    @Test
    void transportsListsWhatWasOpenedAlsoOnceClosed() {
        TransportResources group = TransportResources.create("listed");
        assertThat(group.transports()).isEmpty();
        Transport t = group.forAddress("local://listed");
        assertThat(group.forAddress("local://listed-too")).isSameAs(t);
        assertThat(group.transports()).containsExactly(t);

        t.dispose();
        assertThat(group.transports()).as("closed on its own, until replaced").containsExactly(t);
        Transport replacement = group.forAddress("local://listed");
        assertThat(group.transports()).containsExactly(replacement);

        group.dispose();
        assertThat(group.transports()).as("closed with the resources").containsExactly(replacement);
        assertThat(replacement.isDisposed()).isTrue();
        StepVerifier.create(group.disposeLater()).as("a second close has nothing left to do").verifyComplete();
    }

    @Test
    void disposeLaterClosesEveryTransportWithoutBlocking() {
        TransportResources group = TransportResources.create("later");
        Transport t = group.forAddress("local://later");
        StepVerifier.create(group.disposeLater()).verifyComplete();
        assertThat(t.isDisposed()).isTrue();
        assertThatThrownBy(() -> group.forAddress("local://later")).isInstanceOf(ResourceClosedException.class);
    }

    @Test
    void aClientOrServerEitherRunsOnResourcesOrHasAConfigurationOfItsOwn() {
        TransportResources group = TransportResources.create("exclusive");
        try {
            assertThatThrownBy(() -> RivuletClient.create().runOn(group).config(c -> c.sendQueueDepth(8)))
                    .isInstanceOf(InvalidRequestException.class);
            assertThatThrownBy(() -> RivuletClient.create().config(c -> c.sendQueueDepth(8)).runOn(group))
                    .isInstanceOf(InvalidRequestException.class);
            assertThatThrownBy(() -> RivuletServer.create().runOn(group).metrics(new SimpleMeterRegistry()))
                    .isInstanceOf(InvalidRequestException.class);
            assertThatThrownBy(() -> RivuletServer.create().metrics(new SimpleMeterRegistry()).runOn(group))
                    .isInstanceOf(InvalidRequestException.class);
            assertThatThrownBy(() -> TransportResources.create(" ")).isInstanceOf(InvalidRequestException.class);
        } finally {
            group.dispose();
        }
    }

    @Test
    void theSharedTransportsTakeTheirConfigurationBeforeFirstUseOnly() {
        Transports.disposeShared();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        Transports.configureShared(c -> c.sendQueueDepth(24).meterRegistry(registry));
        assertThat(Transports.sharedConfig().sendQueueDepth()).isEqualTo(24);
        RivuletServer.BoundServer server = RivuletServer.create().bindAddress("local://res-shared")
                .handle(ep -> ep.receive().then()).bindNow();
        try {
            Endpoint ep = RivuletClient.create().remoteAddress("local://res-shared").connectNow();
            assertThat(ep.capabilities().sendQueueDepth()).isEqualTo(24);
            StepVerifier.create(ep.send("hello")).verifyComplete();
            assertThat(registry.find("rivulet.bytes.sent").meters()).isNotEmpty();
            assertThatThrownBy(() -> Transports.configureShared(c -> c.sendQueueDepth(8)))
                    .as("while shared transports are open").isInstanceOf(InvalidRequestException.class);
            ep.dispose();
        } finally {
            server.disposeNow(TIMEOUT);
        }
        Transports.disposeShared();
        assertThat(Transports.shared("local://res-shared").memory()).isNotNull();
        assertThat(Transports.sharedConfig().sendQueueDepth()).as("kept across disposeShared()").isEqualTo(24);
    }
}
