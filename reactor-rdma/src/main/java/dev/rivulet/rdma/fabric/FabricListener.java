package dev.rivulet.rdma.fabric;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.engine.EndpointEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;

/** Accepts bootstrap connections on a TCP port and turns each into an endpoint. */
final class FabricListener implements Listener {

    private static final Logger log = LoggerFactory.getLogger(FabricListener.class);

    private final FabricTransport transport;
    private final ServerSocket server;
    private final String address;
    private final Sinks.Many<Endpoint> accepted = Sinks.many().unicast().onBackpressureBuffer();
    private final Sinks.Empty<Void> disposed = Sinks.empty();
    private volatile boolean isDisposed;

    FabricListener(FabricTransport transport, ServerSocket server, String address) {
        this.transport = transport;
        this.server = server;
        this.address = address;
    }

    void start() {
        Thread.ofPlatform().daemon().name("rivulet-fabric-accept-" + server.getLocalPort()).start(this::acceptLoop);
    }

    private void acceptLoop() {
        while (!isDisposed) {
            Socket s;
            try {
                s = server.accept();
            } catch (IOException e) {
                if (!isDisposed) {
                    log.warn("accept on {} failed", address, e);
                }
                break;
            }
            Thread.ofVirtual().name("rivulet-fabric-handshake").start(() -> handshake(s));
        }
        dispose();
    }

    private void handshake(Socket s) {
        FabricDomain.EndpointHandles h = null;
        try {
            s.setTcpNoDelay(true);
            s.setSoTimeout(10_000);
            Bootstrap.Hello hello = Bootstrap.readHello(s);
            if (!hello.provider().equals(transport.provider()) || hello.eagerSize() != transport.eagerSize()) {
                Bootstrap.writeReply(s, null, "this listener runs provider " + transport.provider() + " with eager size "
                        + transport.eagerSize(), transport.eagerSize());
                Bootstrap.closeQuietly(s);
                return;
            }
            h = transport.fabricEndpoint();
            try {
                transport.checkPeer(hello.name());
            } catch (RuntimeException refused) {
                Bootstrap.writeReply(s, null, refused.getMessage(), transport.eagerSize());
                throw refused;
            }
            Bootstrap.writeReply(s, h.name(), null, transport.eagerSize());
            s.setSoTimeout(0);
            EndpointEngine e = transport.newEndpoint(h, hello.name(), s, "fabric://" + s.getRemoteSocketAddress());
            synchronized (this) {
                if (isDisposed || !accepted.tryEmitNext(e).isSuccess()) {
                    e.dispose();
                }
            }
        } catch (IOException | RuntimeException e) {
            log.debug("bootstrap from {} failed", s.getRemoteSocketAddress(), e);
            if (h != null) {
                transport.closeHandles(h);
            }
            Bootstrap.closeQuietly(s);
        }
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public Flux<Endpoint> accepted() {
        return accepted.asFlux();
    }

    @Override
    public Mono<Void> onDispose() {
        return disposed.asMono();
    }

    @Override
    public synchronized void dispose() {
        if (isDisposed) {
            return;
        }
        isDisposed = true;
        try {
            server.close();
        } catch (IOException e) {
            // closing anyway
        }
        accepted.tryEmitComplete();
        disposed.tryEmitEmpty();
    }

    @Override
    public boolean isDisposed() {
        return isDisposed;
    }
}
