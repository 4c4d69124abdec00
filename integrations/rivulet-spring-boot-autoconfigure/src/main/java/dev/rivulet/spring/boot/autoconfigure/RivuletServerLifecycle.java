package dev.rivulet.spring.boot.autoconfigure;

import java.time.Duration;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.RivuletServer.BoundServer;

/**
 * Binds the application's server when the context starts and stops it in the phase of Spring Boot's graceful web
 * server shutdown: with {@code server.shutdown=graceful} it stops accepting and lets every endpoint finish the
 * requests in flight (within the shutdown phase's timeout) before closing it; otherwise it closes them at once.
 */
public class RivuletServerLifecycle implements SmartLifecycle {

    /** The phase of Spring Boot's {@code WebServerGracefulShutdownLifecycle}: servers drain side by side. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

    private static final Logger log = LoggerFactory.getLogger(RivuletServerLifecycle.class);

    private final RivuletServer server;
    private final ShutdownSettings shutdown;
    private volatile @Nullable BoundServer bound;

    RivuletServerLifecycle(RivuletServer server, ShutdownSettings shutdown) {
        this.server = server;
        this.shutdown = shutdown;
    }

    /** The bound server while it runs, {@code null} before the context started and after it stopped. */
    public @Nullable BoundServer boundServer() {
        return bound;
    }

    @Override
    public void start() {
        BoundServer b = server.bindNow();
        bound = b;
        log.info("Rivulet server listening at {}", b.address());
    }

    @Override
    public void stop() {
        BoundServer b = takeBound();
        if (b != null) {
            b.disposeNow(shutdown.timeout());
        }
    }

    @Override
    public void stop(Runnable callback) {
        BoundServer b = takeBound();
        if (b == null) {
            callback.run();
        } else if (shutdown.graceful()) {
            Duration timeout = shutdown.timeout();
            b.disposeGracefully(timeout).timeout(timeout.plusSeconds(1))
                    .doFinally(s -> callback.run())
                    .subscribe(null, e -> log.warn("Rivulet server at {} did not drain; closing it", b.address(), e));
        } else {
            b.dispose();
            callback.run();
        }
    }

    private @Nullable BoundServer takeBound() {
        BoundServer b = bound;
        bound = null;
        return b;
    }

    @Override
    public boolean isRunning() {
        return bound != null;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
