package dev.rivulet.rdma.fabric;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.engine.AbstractListener;
import dev.rivulet.core.engine.EndpointEngine;
import dev.rivulet.core.admission.AdmissionControl;
import dev.rivulet.core.admission.ReceiveBudget;
import dev.rivulet.core.error.HandshakeException;
import dev.rivulet.core.handshake.Handshake;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.core.handshake.SocketHandshakeIo;
import dev.rivulet.rdma.bootstrap.BootstrapSockets;
import dev.rivulet.rdma.bootstrap.LivenessChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;

import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_ADDR_NOTAVAIL;

/**
 * Accepts bootstrap connections on a TCP port and turns each into an endpoint after the connection handshake. The
 * accept thread only admits ({@link AdmissionControl}: a connection beyond the listener's bounds is closed at once)
 * and hands the socket to a set-up thread (virtual) for the handshake, which has the set-up deadline.
 *
 * <p>Only {@link #dispose()} ends the listener. Whatever fails on the accept thread (accept itself: too many open
 * files, a reset before accept; out of memory; a thread that cannot be started; a class that cannot be loaded in a
 * process out of descriptors) is logged at most every 10 s and retried after 5 ms, doubling up to 1 s; a socket that
 * was accepted but not handed over is closed and its admission ticket returned. A listener that stopped there would
 * keep its port open and answer nobody. Only a {@link VirtualMachineError} other than {@link OutOfMemoryError} (the
 * JVM itself is broken) ends the loop; the listener is then disposed, so clients are refused rather than left
 * waiting. A set-up thread returns the ticket, closes the socket and lets go of the fabric endpoint on every path
 * but success, errors included.
 *
 * <p>A set-up checks the client's endpoint name before it opens anything for it, and its endpoint sends nothing
 * until the client's endpoint has reached it from that name ({@link FabricHello}): the listener's provider never
 * dials an address a client merely named.
 */
final class FabricListener extends AbstractListener {

    private static final Logger log = LoggerFactory.getLogger(FabricListener.class);
    private static final long MIN_BACKOFF_MS = 5;
    private static final long MAX_BACKOFF_MS = 1_000;
    private static final long LOG_EVERY_NANOS = 10_000_000_000L;

    private final FabricTransport transport;
    private final ServerSocket server;
    private final String address;
    private final SecuritySettings security;
    private final AdmissionControl admission;
    /** What this listener's connections together may make it commit ahead of their bytes. */
    private final ReceiveBudget budget;
    private final ThreadFactory setUpThreads;
    private volatile java.util.function.Consumer<Exception> setUpFailed = ex -> { };
    /** Accept-thread only: when the next accept failure may be logged, and how many were left out since. */
    private long nextFailureLog;
    private boolean failureLogged;
    private int failuresLeftOut;

    FabricListener(FabricTransport transport, ServerSocket server, String address, SecuritySettings security) {
        this(transport, server, address, security, Thread.ofVirtual().name("rivulet-fabric-handshake").factory());
    }

    /** {@code setUpThreads} makes the thread each admitted connection is set up on (tests watch them). */
    FabricListener(FabricTransport transport, ServerSocket server, String address, SecuritySettings security,
                   ThreadFactory setUpThreads) {
        this.transport = transport;
        this.server = server;
        this.address = address;
        this.security = security;
        this.budget = transport.listenerBudget();
        this.admission = new AdmissionControl(security, transport.stats().admissionCounters(), budget,
                transport.connectionCost());
        this.setUpThreads = setUpThreads;
    }

    void start() {
        Thread.ofPlatform().daemon().name("rivulet-fabric-accept-" + server.getLocalPort()).start(this::acceptLoop);
    }

    /** Connections held and refused so far (for tests and diagnostics). */
    AdmissionControl admission() {
        return admission;
    }

    private void acceptLoop() {
        try {
            long backoff = 0;
            while (!isDisposed()) {
                try {
                    acceptOne();
                    backoff = 0;
                } catch (Throwable t) {
                    if (isDisposed()) {
                        break;
                    }
                    if (t instanceof VirtualMachineError && !(t instanceof OutOfMemoryError)) {
                        throw (VirtualMachineError) t; // a broken JVM: nothing to retry; disposed below
                    }
                    backoff = backoff == 0 ? MIN_BACKOFF_MS : Math.min(MAX_BACKOFF_MS, backoff * 2);
                    logFailure(t, backoff);
                    try {
                        Thread.sleep(backoff); // an OutOfMemoryError, too: the pause lets the collector catch up
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
        } finally {
            dispose();
        }
    }

    /** Accepts one connection and hands it to a set-up thread; a socket not handed over is closed, its ticket back. */
    private void acceptOne() throws IOException {
        Socket s = server.accept();
        AdmissionControl.Ticket ticket = null;
        boolean handedOver = false;
        try {
            // Evicting closes the socket: a set-up thread blocked reading it then fails and lets go of everything.
            ticket = admission.admit(AdmissionControl.sourceOf(s.getInetAddress()),
                    () -> BootstrapSockets.closeQuietly(s));
            if (ticket == null) {
                return; // full: no thread, no buffer, nothing but the closed socket (below)
            }
            AdmissionControl.Ticket t = ticket;
            Thread setUp = setUpThreads.newThread(() -> setUp(s, t));
            if (setUp == null) {
                throw new RejectedExecutionException("no thread to set up a connection on");
            }
            setUp.start();
            handedOver = true;
        } finally {
            if (!handedOver) {
                BootstrapSockets.closeQuietly(s);
                if (ticket != null) {
                    ticket.close();
                }
            }
        }
    }

    /** At most one line per 10 s however fast accept fails; logging may fail as well (out of memory, descriptors). */
    private void logFailure(Throwable t, long backoffMs) {
        try {
            long now = System.nanoTime();
            if (failureLogged && now - nextFailureLog < 0) {
                failuresLeftOut++;
                return;
            }
            failureLogged = true;
            nextFailureLog = now + LOG_EVERY_NANOS;
            String more = failuresLeftOut > 0 ? " (" + failuresLeftOut + " more since the last report)" : "";
            failuresLeftOut = 0;
            log.warn("accept on {} failed; retrying in {} ms: {}{}", address, backoffMs, t, more);
        } catch (Throwable ignored) {
            // the listener goes on regardless
        }
    }

    private void setUp(Socket plain, AdmissionControl.Ticket ticket) {
        SetUp state = new SetUp();
        Socket s = plain;
        EndpointEngine e = null;
        boolean established = false;
        try {
            long deadline = System.nanoTime() + security.handshakeTimeout().toNanos();
            s = BootstrapSockets.accepted(plain, security, transport.liveness(), deadline);
            Socket io = s;
            Handshake.server(new SocketHandshakeIo(io, deadline), security, Handshake.KIND_FABRIC,
                    new Handshake.Responder() {
                        @Override
                        public String checkService(byte[] service) {
                            return Bootstrap.checkService(service, transport.provider(), transport.eagerSize());
                        }

                        @Override
                        public byte[] accept(byte[] name) {
                            // The name first: a refused one costs no endpoint, no AV entry, no provider memory.
                            transport.checkPeerName(name, io.getInetAddress(), io.getLocalAddress());
                            FabricDomain.EndpointHandles h = transport.fabricEndpoint();
                            state.handles = h;
                            // In the AV before the client learns our name, so whatever it sends names it as sender.
                            state.peer = transport.connectPeer(h, name);
                            state.hello = transport.expectHello(h, state.peer);
                            return FabricHello.answer(h.name(), state.hello.token());
                        }
                    });
            // Nothing of ours has been sent on the fabric, and nothing is until the client's endpoint proved that it
            // is the one it named: our provider then answers on the client's connection instead of dialling.
            state.hello.awaitFromPeer(deadline);
            state.hello.release(); // its receive completed
            state.hello = null;
            LivenessChannel.sendReady(io);
            io.setSoTimeout(0);
            e = transport.newEndpoint(state.handles, state.peer, io, "fabric://" + io.getRemoteSocketAddress(),
                    budget.connection(security.authenticatesPeers(), transport.capabilities().maxMessageSize(),
                            transport.liveness().heartbeatInterval().toNanos(), System.nanoTime()));
            state.handles = null; // the endpoint owns them now
            if (!ticket.established()) {
                throw new HandshakeException("set-up ended to make room for a newer connection");
            }
            e.onClose().subscribe(null, err -> ticket.close(), ticket::close);
            established = true; // the endpoint holds the ticket until it closes
            if (!offer(e)) {
                e.dispose();
            }
        } catch (IOException | RuntimeException ex) {
            log.debug("connection set-up from {} failed", plain.getRemoteSocketAddress(), ex);
            setUpFailed.accept(ex);
        } finally {
            if (!established) {
                abandon(e, state, s, plain, ticket);
            }
        }
    }

    /** What one set-up has made so far, for {@link #abandon}. */
    private static final class SetUp {
        FabricDomain.EndpointHandles handles;
        long peer = FI_ADDR_NOTAVAIL;
        FabricHello hello;
    }

    /** Lets go of everything a set-up that did not finish made (errors included), and returns its ticket. */
    private void abandon(EndpointEngine e, SetUp state, Socket s, Socket plain, AdmissionControl.Ticket ticket) {
        try {
            if (e != null) {
                e.dispose(); // it owns the handles and the socket
            } else if (state.handles != null) {
                transport.closeHandles(state.handles, state.peer, state.hello);
            } else if (state.hello != null) {
                state.hello.release();
            }
        } finally {
            BootstrapSockets.closeQuietly(s);
            BootstrapSockets.closeQuietly(plain);
            ticket.close();
        }
    }

    /** Tells {@code observer} why each set-up that failed did (tests watch refusals); replaces the previous one. */
    void onSetUpFailure(java.util.function.Consumer<Exception> observer) {
        this.setUpFailed = observer;
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    protected void stop() {
        BootstrapSockets.closeQuietly(server);
    }
}
