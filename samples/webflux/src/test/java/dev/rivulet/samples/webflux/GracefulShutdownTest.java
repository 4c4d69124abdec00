package dev.rivulet.samples.webflux;

import dev.rivulet.core.Transport;
import dev.rivulet.core.memory.LeakDetector;
import dev.rivulet.samples.webflux.front.LoadGenerator;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

import static org.assertj.core.api.Assertions.assertThat;

/** Closing the context while blocks are being written and read: work in flight ends cleanly and nothing leaks. */
class GracefulShutdownTest {

    @Test
    void closingTheContextUnderLoadLeaksNothing() {
        LeakDetector.enable(LeakDetector.Level.SIMPLE);
        LeakDetector.reset();
        try {
            ConfigurableApplicationContext app = new SpringApplicationBuilder(WebfluxSampleApplication.class)
                    .run("--blocks.role=both", "--blocks.address=local://shutdown-test", "--server.port=0",
                            "--blocks.load.enabled=true", "--blocks.load.block-size=2MB",
                            "--blocks.load.interval=1ms");
            LoadGenerator load = app.getBean(LoadGenerator.class);
            Transport transport = Apps.transport(app);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (load.rounds() < 20 && System.nanoTime() < deadline) {
                LockSupport.parkNanos(10_000_000);
            }
            assertThat(load.rounds()).isGreaterThanOrEqualTo(20);
            app.close();
            assertThat(transport.isDisposed()).isTrue();
            assertThat(load.mismatches()).isZero();
            LeakDetector.awaitNoLeaks(Duration.ofSeconds(10));
        } finally {
            LeakDetector.disable();
        }
    }
}
