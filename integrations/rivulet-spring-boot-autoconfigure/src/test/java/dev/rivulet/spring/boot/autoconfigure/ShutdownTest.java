package dev.rivulet.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.messaging.handler.annotation.MessageMapping;
import org.springframework.stereotype.Controller;
import reactor.core.publisher.Mono;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.interaction.Interactions;
import dev.rivulet.spring.codec.RivuletStrategies;
import dev.rivulet.spring.requester.RivuletRequester;

/** The server's shutdown follows {@code server.shutdown}: a request in flight finishes, or is cut off. */
class ShutdownTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RivuletAutoConfiguration.class))
            .withBean(SlowController.class);

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

    /** Sends the slow request, closes the application once the controller has it, and gives the answer. */
    private static CompletableFuture<String> answerWhileClosing(
            org.springframework.context.ConfigurableApplicationContext context) throws InterruptedException {
        String address = context.getBean(RivuletServerLifecycle.class).boundServer().address();
        Endpoint endpoint = context.getBean(RivuletClient.class).remoteAddress(address).connectNow();
        RivuletRequester requester = RivuletRequester.create(Interactions.client(endpoint),
                context.getBean(RivuletStrategies.class));
        SlowController controller = context.getBean(SlowController.class);
        CompletableFuture<String> answer = requester.route("slow").retrieveMono(String.class).toFuture();
        assertThat(controller.received.await(10, TimeUnit.SECONDS)).isTrue();
        context.close();
        return answer;
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
