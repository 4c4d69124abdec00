package dev.rivulet.rdma.fabric;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.engine.EndpointEngine;
import dev.rivulet.core.security.AdmissionControl;
import dev.rivulet.core.security.Handshake;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.core.security.SocketHandshakeIo;
import dev.rivulet.core.security.TlsSockets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicReference;

import static dev.rivulet.rdma.libfabric.FiConstants.FI_ADDR_NOTAVAIL;

/**
 * Accepts bootstrap connections on a TCP port and turns each into an endpoint after the connection handshake. The
 * accept thread only admits ({@link AdmissionControl}: a connection beyond the listener's bounds is closed at once)
 * and hands the socket to a virtual thread for the handshake, which has the set-up deadline; a failed accept (too
 * many open files, a reset before accept) is logged and retried after a pause, so only {@link #dispose()} ends the
 * listener.
 */
final class FabricListener implements Listener {

    private static final Logger log = LoggerFactory.getLogger(FabricListener.class);
    private static final long MIN_BACKOFF_MS = 5;
    private static final long MAX_BACKOFF_MS = 1_000;

    private final FabricTransport transport;
    private final ServerSocket server;
    private final String address;
    private final SecuritySettings security;
    private final AdmissionControl admission;
    private final Sinks.Many<Endpoint> accepted = Sinks.many().unicast().onBackpressureBuffer();
    private final Sinks.Empty<Void> disposed = Sinks.empty();
    private volatile boolean isDisposed;
    private long lastFailureLog;

    FabricListener(FabricTransport transport, ServerSocket server, String address, SecuritySettings security) {
        this.transport = transport;
        this.server = server;
        this.address = address;
        this.security = security;
        this.admission = new AdmissionControl(security);
    }

    void start() {
        Thread.ofPlatform().daemon().name("rivulet-fabric-accept-" + server.getLocalPort()).start(this::acceptLoop);
    }

    /** Connections held and refused so far (for tests and diagnostics). */
    AdmissionControl admission() {
        return admission;
    }

    private void acceptLoop() {
        long backoff = MIN_BACKOFF_MS;
        while (!isDisposed) {
            Socket s;
            try {
                s = server.accept();
                backoff = MIN_BACKOFF_MS;
            } catch (IOException e) {
                if (isDisposed) {
                    break;
                }
                logFailure(e);
                try {
                    Thread.sleep(backoff);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    break;
                }
                backoff = Math.min(backoff * 2, MAX_BACKOFF_MS);
                continue;
            }
            AdmissionControl.Ticket ticket = admission.admit();
            if (ticket == null) {
                Bootstrap.closeQuietly(s); // full: no thread, no buffer, nothing but the closed socket
                continue;
            }
            Thread.ofVirtual().name("rivulet-fabric-handshake").start(() -> setUp(s, ticket));
        }
        dispose();
    }

    private void logFailure(IOException e) {
        long now = System.nanoTime();
        if (now - lastFailureLog > 10_000_000_000L) { // at most one line per 10 s however fast accept fails
            lastFailureLog = now;
            log.warn("accept on {} failed; retrying: {}", address, e.toString());
        }
    }

    private void setUp(Socket plain, AdmissionControl.Ticket ticket) {
        AtomicReference<FabricDomain.EndpointHandles> handles = new AtomicReference<>();
        long[] peer = {FI_ADDR_NOTAVAIL};
        Socket s = plain;
        try {
            plain.setTcpNoDelay(true);
            transport.tuneBootstrap(plain);
            long deadline = System.nanoTime() + security.handshakeTimeout().toNanos();
            if (security.usesTls()) {
                s = TlsSockets.server(plain, security, deadline);
            }
            Socket io = s;
            byte[] clientName = Handshake.server(new SocketHandshakeIo(io, deadline), security, Handshake.KIND_FABRIC,
                    new Handshake.Responder() {
                        @Override
                        public String checkService(byte[] service) {
                            return Bootstrap.checkService(service, transport.provider(), transport.eagerSize());
                        }

                        @Override
                        public byte[] accept(byte[] name) {
                            FabricDomain.EndpointHandles h = transport.fabricEndpoint();
                            handles.set(h);
                            transport.checkPeerName(name, io.getInetAddress());
                            // In the AV before the client learns our name, so whatever it sends names it as sender.
                            peer[0] = transport.connectPeer(h, name);
                            return h.name();
                        }
                    });
            Bootstrap.awaitReady(io, deadline); // the client has us in its AV: ours may send
            io.setSoTimeout(0);
            EndpointEngine e = transport.newEndpoint(handles.get(), peer[0], io,
                    "fabric://" + io.getRemoteSocketAddress());
            handles.set(null); // the endpoint owns them now
            ticket.established();
            e.onClose().subscribe(null, err -> ticket.close(), ticket::close);
            synchronized (this) {
                if (isDisposed || !accepted.tryEmitNext(e).isSuccess()) {
                    e.dispose();
                }
            }
        } catch (IOException | RuntimeException e) {
            log.debug("connection set-up from {} failed", plain.getRemoteSocketAddress(), e);
            FabricDomain.EndpointHandles h = handles.get();
            if (h != null) {
                transport.closeHandles(h, peer[0]);
            }
            Bootstrap.closeQuietly(s);
            Bootstrap.closeQuietly(plain);
            ticket.close();
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
