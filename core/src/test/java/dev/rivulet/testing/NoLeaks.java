package dev.rivulet.testing;

import dev.rivulet.core.memory.LeakDetector;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.time.Duration;

/**
 * Runs each test with leak detection on and fails it when a buffer it allocated was never released (awaited for a
 * while: buffers go back from polling threads). {@code @ExtendWith(NoLeaks.class)} on a test class.
 */
public final class NoLeaks implements BeforeEachCallback, AfterEachCallback {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Override
    public void beforeEach(ExtensionContext context) {
        LeakDetector.enable();
        LeakDetector.reset();
    }

    @Override
    public void afterEach(ExtensionContext context) {
        try {
            LeakDetector.awaitNoLeaks(WAIT);
        } finally {
            LeakDetector.disable();
        }
    }
}
