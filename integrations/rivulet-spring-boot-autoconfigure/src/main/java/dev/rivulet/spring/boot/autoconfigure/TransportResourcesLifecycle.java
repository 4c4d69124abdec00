package dev.rivulet.spring.boot.autoconfigure;

import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

import dev.rivulet.core.TransportResources;

/**
 * Closes the application's transport resources after everything that may use them has stopped: after the servers'
 * graceful shutdown ({@link RivuletServerLifecycle#PHASE}) and after Spring Boot's web servers, whose handlers may
 * still be sending on them while they drain.
 */
public class TransportResourcesLifecycle implements SmartLifecycle {

    /** Below Spring Boot's web server phase ({@code DEFAULT_PHASE - 2048}): stopped after it. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private static final Logger log = LoggerFactory.getLogger(TransportResourcesLifecycle.class);

    private final TransportResources resources;
    private final Duration timeout;
    private volatile boolean running;

    TransportResourcesLifecycle(TransportResources resources, Duration timeout) {
        this.resources = resources;
        this.timeout = timeout;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        resources.disposeLater().block(timeout);
    }

    @Override
    public void stop(Runnable callback) {
        running = false;
        resources.disposeLater().timeout(timeout)
                .doFinally(s -> callback.run())
                .subscribe(null, e -> log.warn("closing {} failed", resources, e));
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
