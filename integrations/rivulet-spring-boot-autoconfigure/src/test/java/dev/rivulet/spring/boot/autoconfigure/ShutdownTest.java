package dev.rivulet.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import dev.rivulet.core.RivuletClient;
import dev.rivulet.spring.boot.autoconfigure.health.RivuletServerHealthIndicator;
import dev.rivulet.spring.codec.RivuletStrategies;
import dev.rivulet.spring.requester.RivuletRequester;

/**
 * The server's shutdown follows {@code server.shutdown}: a request in flight finishes, or is cut off; its health says
 * it is draining meanwhile.
 */
class ShutdownTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RivuletAutoConfiguration.class))
            .withBean(SlowController.class)
            .withBean(HeldController.class);

    @Test
    void gracefulShutdownLetsTheRequestInFlightFinish() {
        runner.withPropertyValues("rivulet.server.address=local://graceful-test").run(context -> {
            long start = System.nanoTime();
            assertThat(answerWhileClosing(context)).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("done");
            // the server waited for that request, not for the shutdown phase's timeout (30 s)
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        });
    }

    @Test
    void immediateShutdownCutsItOff() {
        runner.withPropertyValues("rivulet.server.address=local://immediate-test", "server.shutdown=immediate")
                .run(context -> assertThat(answerWhileClosing(context)).failsWithin(Duration.ofSeconds(10))
                        .withThrowableThat().isNotInstanceOf(java.util.concurrent.TimeoutException.class));
    }

    @Test
    void theServerIsOutOfServiceWhileItDrains() throws Exception {
        runner.withPropertyValues("rivulet.server.address=local://draining-health-test").run(context -> {
            RivuletServerLifecycle server = context.getBean(RivuletServerLifecycle.class);
            RivuletServerHealthIndicator health = new RivuletServerHealthIndicator(server);
            RivuletRequester requester = requesterFromOutside(server);
            HeldController controller = context.getBean(HeldController.class);
            CompletableFuture<String> answer = requester.route("held").retrieveMono(String.class).toFuture();
            assertThat(controller.received.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(health.health().getStatus()).isEqualTo(Status.UP);

            CompletableFuture<Void> closing = CompletableFuture.runAsync(context::close);
            Health draining = awaitStatus(health, Status.OUT_OF_SERVICE);
            assertThat(draining.getDetails()).containsEntry("reason", "draining").containsEntry("requestsInFlight", 1);

            controller.answer.tryEmitValue("done");
            assertThat(answer).succeedsWithin(Duration.ofSeconds(10)).isEqualTo("done");
            assertThat(closing).succeedsWithin(Duration.ofSeconds(10));
            assertThat(health.health().getStatus()).isEqualTo(Status.DOWN);
            requester.requester().dispose();
        });
    }

    /** The indicator's health once it has {@code status}: the state of a shutdown running on another thread. */
    private static Health awaitStatus(RivuletServerHealthIndicator indicator, Status status)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        Health health = indicator.health();
        while (!health.getStatus().equals(status) && System.nanoTime() < deadline) {
            Thread.sleep(10);
            health = indicator.health();
        }
        assertThat(health.getStatus()).isEqualTo(status);
        return health;
    }

    /** Sends the slow request, closes the application once the controller has it, and gives the answer. */
    private static CompletableFuture<String> answerWhileClosing(
            org.springframework.context.ConfigurableApplicationContext context) throws InterruptedException {
        RivuletRequester requester = requesterFromOutside(context.getBean(RivuletServerLifecycle.class));
        SlowController controller = context.getBean(SlowController.class);
        CompletableFuture<String> answer = requester.route("slow").retrieveMono(String.class).toFuture();
        assertThat(controller.received.await(10, TimeUnit.SECONDS)).isTrue();
        context.close();
        return answer.whenComplete((value, error) -> requester.requester().dispose());
    }

    /**
     * A requester connected from outside the application, as a client in another process is: on the application's
     * resources, its endpoint would close with them, whatever the server's shutdown let through.
     */
    private static RivuletRequester requesterFromOutside(RivuletServerLifecycle server) {
        return RivuletRequester.builder(RivuletClient.create(), RivuletStrategies.builder().build())
                .connectNow(server.boundServer().address());
    }

    @Controller
    static class HeldController {

        final java.util.concurrent.CountDownLatch received = new java.util.concurrent.CountDownLatch(1);
        final Sinks.One<String> answer = Sinks.one();

        @MessageMapping("held")
        Mono<String> held() {
            received.countDown();
            return answer.asMono();
        }
    }

    @Controller
    static class SlowController {

        final java.util.concurrent.CountDownLatch received = new java.util.concurrent.CountDownLatch(1);

        @MessageMapping("slow")
        Mono<String> slow() {
            received.countDown();
            return Mono.delay(Duration.ofMillis(300)).thenReturn("done");
        }
    }
}
