package dev.rivulet.core.interaction;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.RivuletClient;
import dev.rivulet.core.RivuletServer;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.memory.LeakDetector;
import reactor.core.publisher.Sinks;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/** A local server whose connections run an interaction session, and a client endpoint to it, for the tests here. */
final class InteractionSessions implements AutoCloseable {

    static final Duration TIMEOUT = Duration.ofSeconds(20);
    private static final AtomicInteger NAMES = new AtomicInteger();

    final Transport transport;
    final RivuletServer.BoundServer server;
    final Endpoint clientEndpoint;
    final Sinks.One<Requester> serverSide = Sinks.one();

    /** {@code session} makes the server side's session of each accepted endpoint. */
    InteractionSessions(Function<Endpoint, Requester> session) {
        LeakDetector.enable();
        LeakDetector.reset();
        transport = Transports.open("local", TransportConfig.defaults());
        server = RivuletServer.create().runOn(transport).bindAddress("local://sessions-" + NAMES.incrementAndGet())
                .handle(peer -> {
                    Requester r = session.apply(peer);
                    serverSide.tryEmitValue(r);
                    return r.onClose();
                })
                .bindNow();
        clientEndpoint = RivuletClient.create().runOn(transport).remoteAddress(server.address()).connectNow();
    }

    @Override
    public void close() {
        try {
            clientEndpoint.dispose();
            server.disposeNow(TIMEOUT);
            transport.dispose();
            LeakDetector.awaitNoLeaks(TIMEOUT);
        } finally {
            LeakDetector.disable();
        }
    }
}
