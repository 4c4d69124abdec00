package dev.rivulet.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.RivuletServer.BoundServer;
import dev.rivulet.core.interaction.InteractionOptions;
import dev.rivulet.core.interaction.Interactions;
import dev.rivulet.core.interaction.Responder;

/**
 * Binds the application's server when the context starts and stops it in the phase of Spring Boot's graceful web
 * server shutdown: with {@code server.shutdown=graceful} it refuses new requests (as retryable), lets the requests in
 * flight finish (within the shutdown phase's timeout), then closes its endpoints; otherwise it closes them at once.
 */
public class RivuletServerLifecycle implements SmartLifecycle {

    /** The phase of Spring Boot's {@code WebServerGracefulShutdownLifecycle}: servers drain side by side. */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 1024;

    private static final Logger log = LoggerFactory.getLogger(RivuletServerLifecycle.class);

    private final RivuletServer server;
    private final DrainingResponder responder;
    private final ShutdownSettings shutdown;
    /** The endpoints of the sessions being served, to flush before a graceful shutdown closes them. */
    private final Set<Endpoint> peers = ConcurrentHashMap.newKeySet();
    private volatile @Nullable BoundServer bound;
    private volatile boolean draining;

    /** {@code server} answering each session's requests with {@code responder}. */
    RivuletServerLifecycle(RivuletServer server, Responder responder, InteractionOptions options,
                           ShutdownSettings shutdown) {
        this.responder = new DrainingResponder(responder);
        this.server = server.handle(peer -> {
            peers.add(peer);
            return Interactions.server(peer, this.responder, options).onClose().doFinally(s -> peers.remove(peer));
        });
        this.shutdown = shutdown;
    }

    /** The bound server while it runs, {@code null} before the context started and after it stopped. */
    public @Nullable BoundServer boundServer() {
        return bound;
    }

    /** Whether a graceful shutdown is waiting for the requests in flight (new ones are refused meanwhile). */
    public boolean isDraining() {
        return draining;
    }

    /** Requests taken and not yet answered. */
    public int requestsInFlight() {
        return responder.inFlight();
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
            draining = true;
            responder.drain()
                    .then(Mono.defer(this::flushAnswers))
                    .timeout(timeout, Mono.fromRunnable(() -> log.warn("Rivulet server at {}: {} requests still in "
                            + "flight after {}; closing it", b.address(), responder.inFlight(), timeout)))
                    .doFinally(s -> {
                        draining = false;
                        b.dispose();
                        callback.run();
                    })
                    .subscribe();
        } else {
            b.dispose();
            callback.run();
        }
    }

    /**
     * Waits until the last answers are on the wire: a request is counted out when its answer's publisher ends, which
     * may be before the frame carrying the answer was sent, and closing the endpoints then would drop it.
     */
    private Mono<Void> flushAnswers() {
        return Flux.fromIterable(List.copyOf(peers))
                .flatMap(peer -> peer.flush().onErrorResume(e -> Mono.empty()))
                .then();
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
