package dev.rivulet.rdma.verbs;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.admission.AdmissionControl;
import dev.rivulet.core.engine.AbstractListener;
import dev.rivulet.core.engine.EndpointEngine;
import dev.rivulet.core.error.ConnectTimeoutException;
import dev.rivulet.core.error.HandshakeException;
import dev.rivulet.core.handshake.Handshake;
import dev.rivulet.core.handshake.HandshakeIo;
import dev.rivulet.core.handshake.SocketHandshakeIo;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.core.sys.LibcSockets;
import dev.rivulet.rdma.bootstrap.BootstrapSockets;
import dev.rivulet.rdma.bootstrap.LivenessChannel;
import dev.rivulet.rdma.verbs.sys.RdmaCmId;
import dev.rivulet.rdma.verbs.sys.RdmaConnParam;
import dev.rivulet.rdma.verbs.sys.Rdmacm;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static dev.rivulet.rdma.verbs.sys.VerbsConstants.*;

/**
 * Accepts bootstrap connections on a TCP port and turns each into an endpoint: core's handshake (admission control,
 * TLS, the shared secret), then the queue pair. The accept thread only admits and hands each socket to a virtual
 * set-up thread bounded by the handshake timeout; a set-up that fails lets go of everything it made.
 *
 * <p>With rdma_cm connections the listener also listens with rdma_cm, on the same address and, where free, the same
 * port number (rdma_cm's port space is its own). Its handshake answer is a one-time ticket; a connection request
 * presenting a ticket it handed out is accepted by the set-up thread waiting for it, any other request is rejected at
 * once. With manual connections the handshake itself carries both queue pairs' descriptions, and the listener's side
 * sends nothing before the client says its queue pair is ready.
 */
final class VerbsListener extends AbstractListener {

    private static final Logger log = LoggerFactory.getLogger(VerbsListener.class);
    private static final int BACKLOG = 128;

    private final VerbsTransport transport;
    private final ServerSocket server;
    private final String address;
    private final SecuritySettings security;
    private final AdmissionControl admission;
    /** rdma_cm only: the listening id, its port, and the tickets handed out and not yet presented. */
    private final MemorySegment listenId;
    private final int cmPort;
    private final Map<ByteBuffer, CompletableFuture<CmEvents.Event>> tickets = new ConcurrentHashMap<>();

    VerbsListener(VerbsTransport transport, ServerSocket server, String address, SecuritySettings security) {
        this.transport = transport;
        this.server = server;
        this.address = address;
        this.security = security;
        // A connection's receive ring (a buffer of messageSize per receive and control word) is held from the
        // listener's budget while it lasts, where peers cannot authenticate.
        this.admission = new AdmissionControl(security, transport.stats().admissionCounters(),
                transport.listenerBudget(), (long) (transport.capabilities().receiveQueueDepth()
                + VerbsWire.CONTROL_SLOTS) * transport.messageSize);
        if (transport.manual) {
            this.listenId = MemorySegment.NULL;
            this.cmPort = 0;
        } else {
            this.listenId = transport.cm.createId();
            try {
                this.cmPort = listenCm();
            } catch (RuntimeException e) {
                transport.cm.destroyLater(listenId);
                throw e;
            }
        }
    }

    /** Binds the rdma_cm id to the socket's address (same port if rdma_cm has it free, else any) and listens. */
    private int listenCm() {
        try (Arena a = Arena.ofConfined()) {
            InetSocketAddress local = new InetSocketAddress(server.getInetAddress(), server.getLocalPort());
            int rc = Rdmacm.bindAddr(listenId, LibcSockets.sockaddr(a, local));
            if (rc == -Errno.EADDRINUSE) {
                InetSocketAddress anyPort = new InetSocketAddress(server.getInetAddress(), 0);
                rc = Rdmacm.bindAddr(listenId, LibcSockets.sockaddr(a, anyPort));
            }
            VerbsTransport.check("rdma_bind_addr", rc);
        }
        VerbsTransport.check("rdma_listen", Rdmacm.listen(listenId, BACKLOG));
        transport.cm.register(listenId, this::connectRequest);
        return Rdmacm.getSrcPort(listenId);
    }

    /** rdma_cm thread: a request presenting a live ticket goes to its set-up thread; anything else is rejected. */
    private void connectRequest(CmEvents.Event e) {
        if (e.type() != RDMA_CM_EVENT_CONNECT_REQUEST) {
            return;
        }
        byte[] ticket = SetupMessages.CmTicket.ticketIn(e.privateData());
        CompletableFuture<CmEvents.Event> waiting = ticket == null ? null : tickets.remove(ByteBuffer.wrap(ticket));
        if (waiting == null || !waiting.complete(e)) {
            MemorySegment id = RdmaCmId.of(MemorySegment.ofAddress(e.id()));
            Rdmacm.reject(id, MemorySegment.NULL);
            transport.cm.destroyLater(id);
        }
    }

    void start() {
        Thread.ofPlatform().daemon().name("rivulet-verbs-accept-" + server.getLocalPort()).start(this::acceptLoop);
    }

    private void acceptLoop() {
        long backoff = 0;
        try {
            while (!isDisposed()) {
                Socket s;
                try {
                    s = server.accept();
                    backoff = 0;
                } catch (IOException | RuntimeException | OutOfMemoryError e) {
                    if (isDisposed()) {
                        break;
                    }
                    // Out of descriptors, a reset before accept, a full heap: wait a little and go on listening.
                    backoff = backoff == 0 ? 5 : Math.min(1_000, backoff * 2);
                    log.debug("accept on {} failed; retrying in {} ms", address, backoff, e);
                    Thread.sleep(backoff);
                    continue;
                }
                AdmissionControl.Ticket ticket = admission.admit(AdmissionControl.sourceOf(s.getInetAddress()),
                        () -> BootstrapSockets.closeQuietly(s)); // a blocked read on it then fails: set-up ends
                if (ticket == null) {
                    BootstrapSockets.closeQuietly(s); // over the listener's bounds
                    continue;
                }
                try {
                    Thread.ofVirtual().name("rivulet-verbs-handshake").start(() -> setUp(s, ticket));
                } catch (RuntimeException | OutOfMemoryError e) {
                    BootstrapSockets.closeQuietly(s);
                    ticket.close();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            dispose();
        }
    }

    private void setUp(Socket plain, AdmissionControl.Ticket ticket) {
        Socket s = plain;
        VerbsWire[] wire = {null};
        MemorySegment[] cmId = {MemorySegment.NULL};
        SetupMessages.CmTicket[] cmTicket = {null};
        CompletableFuture<CmEvents.Event> request = new CompletableFuture<>();
        EndpointEngine e = null;
        try {
            long deadline = System.nanoTime() + security.handshakeTimeout().toNanos();
            s = BootstrapSockets.accepted(plain, security, transport.liveness(), deadline);
            HandshakeIo io = new SocketHandshakeIo(s, deadline);
            ProgressLoop loop = transport.nextLoop();
            CompletionWaiter waiter = transport.waiter(loop);
            String remote = "verbs://" + plain.getRemoteSocketAddress();
            Handshake.server(io, security, Handshake.KIND_FABRIC, new Handshake.Responder() {
                @Override
                public String checkService(byte[] service) {
                    return SetupMessages.checkService(service, transport.messageSize,
                            transport.manual ? SetupMessages.MANUAL : SetupMessages.RDMACM);
                }

                @Override
                public byte[] accept(byte[] params) {
                    if (transport.manual) {
                        return acceptManual(params, loop, waiter, remote, wire);
                    }
                    if (params.length != 0) {
                        throw new HandshakeException("an rdma_cm client sends no parameters");
                    }
                    SetupMessages.CmTicket t = SetupMessages.CmTicket.fresh(cmPort);
                    cmTicket[0] = t;
                    tickets.put(ByteBuffer.wrap(t.ticket()), request);
                    return t.encode();
                }
            });
            if (transport.manual) {
                LivenessChannel.awaitReady(s, deadline); // the client's queue pair is in RTS: ours may send
            } else {
                acceptCm(cmTicket[0], request, loop, waiter, remote, deadline, wire, cmId);
            }
            s.setSoTimeout(0);
            e = transport.start(wire[0], loop, waiter, s);
            EndpointEngine started = e;
            if (!ticket.established()) {
                started.dispose(); // evicted just as its set-up finished: its slot is someone else's
                return;
            }
            e.onClose().subscribe(null, err -> ticket.close(), ticket::close);
            if (!offer(started)) {
                started.dispose();
            }
        } catch (IOException | RuntimeException ex) {
            log.debug("connection set-up from {} failed", plain.getRemoteSocketAddress(), ex);
            if (cmTicket[0] != null) {
                tickets.remove(ByteBuffer.wrap(cmTicket[0].ticket()));
            }
            boolean arrived = !request.cancel(false) && !request.isCompletedExceptionally();
            if (arrived && wire[0] == null && cmId[0].address() == 0) {
                // The client's request arrived but was never taken up: refuse it and let go of its id.
                MemorySegment id = RdmaCmId.of(MemorySegment.ofAddress(request.join().id()));
                Rdmacm.reject(id, MemorySegment.NULL);
                transport.cm.destroyLater(id);
            }
            if (e == null) {
                transport.abandon(wire[0], cmId[0], s, plain);
                ticket.close();
            }
        }
    }

    /** Manual: our queue pair, to RTS towards the client's description; our description is the answer. */
    private byte[] acceptManual(byte[] params, ProgressLoop loop, CompletionWaiter waiter, String remote,
                                VerbsWire[] wire) {
        SetupMessages.QpInfo peer = SetupMessages.QpInfo.decode(params);
        QueuePair qp = QueuePair.createManual(transport.device, waiter.channel(), transport.sizes(waiter));
        wire[0] = transport.newWire(qp, loop, remote);
        qp.toInit(transport.device);
        wire[0].postInitialReceives();
        qp.toRtr(transport.device, peer);
        qp.toRts(transport.device, peer, transport.ackTimeout(), transport.retryCount());
        return qp.describe(transport.device).encode();
    }

    /**
     * rdma_cm: waits for the request presenting {@code ticket}, creates the queue pair on its id, posts the first
     * receives and accepts, echoing the ticket, within the set-up deadline.
     */
    private void acceptCm(SetupMessages.CmTicket ticket, CompletableFuture<CmEvents.Event> request, ProgressLoop loop,
                          CompletionWaiter waiter, String remote, long deadline, VerbsWire[] wire,
                          MemorySegment[] cmId) {
        CmEvents.Event req;
        try {
            req = request.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException | InterruptedException | ExecutionException x) {
            if (x instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new ConnectTimeoutException("the client's rdma_cm connection request did not arrive in time");
        }
        MemorySegment id = RdmaCmId.of(MemorySegment.ofAddress(req.id()));
        cmId[0] = id;
        CmEvents.Waiter events = new CmEvents.Waiter();
        transport.cm.register(id, events);
        QueuePair qp;
        try {
            qp = QueuePair.createOnCmId(transport.device, id, waiter.channel(), transport.sizes(waiter),
                    transport.cm);
        } catch (RuntimeException x) {
            Rdmacm.reject(id, MemorySegment.NULL);
            throw x;
        }
        cmId[0] = MemorySegment.NULL; // the queue pair owns the id now
        wire[0] = transport.newWire(qp, loop, remote);
        wire[0].postInitialReceives();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment param = RdmaConnParam.allocate(a);
            // At most what the client's side can take: our reads served ≤ its initiator depth and the reverse.
            RdmaConnParam.set(param, a.allocateFrom(ValueLayout.JAVA_BYTE, ticket.privateData()),
                    Math.min(QueuePair.responderResources(transport.device), req.initiatorDepth()),
                    Math.min(QueuePair.initiatorDepth(transport.device), req.responderResources()),
                    transport.retryCount(), QueuePair.RNR_RETRY_FOREVER);
            VerbsTransport.check("rdma_accept", Rdmacm.accept(id, param));
        }
        events.await(RDMA_CM_EVENT_ESTABLISHED, deadline, "accepting " + remote);
        VerbsWire w = wire[0];
        events.forward(ev -> {
            if (ev.type() == RDMA_CM_EVENT_DISCONNECTED || ev.type() == RDMA_CM_EVENT_DEVICE_REMOVAL) {
                w.cmDisconnected();
            }
        });
    }

    /** Connections held and refused so far. */
    AdmissionControl admission() {
        return admission;
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    protected void stop() {
        BootstrapSockets.closeQuietly(server);
        if (listenId.address() != 0) {
            transport.cm.destroyLater(listenId);
        }
        tickets.values().forEach(f -> f.cancel(false));
        tickets.clear();
    }
}
