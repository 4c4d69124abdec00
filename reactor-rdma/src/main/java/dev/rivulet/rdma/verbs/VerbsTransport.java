package dev.rivulet.rdma.verbs;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Completion;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Operation;
import dev.rivulet.core.Ordering;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.admission.ReceiveBudget;
import dev.rivulet.core.engine.AbstractTransport;
import dev.rivulet.core.engine.EndpointEngine;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.HandshakeException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.handshake.Handshake;
import dev.rivulet.core.handshake.HandshakeIo;
import dev.rivulet.core.handshake.SocketHandshakeIo;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.loop.ErrorPathClasses;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.core.sys.LibcSockets;
import dev.rivulet.rdma.VerbsOptions;
import dev.rivulet.rdma.bootstrap.BootstrapSockets;
import dev.rivulet.rdma.bootstrap.LivenessChannel;
import dev.rivulet.rdma.wire.ConnectionFate;
import dev.rivulet.rdma.wire.OwedReceives;
import dev.rivulet.rdma.wire.RdmaWire;
import dev.rivulet.rdma.wire.WriteTimeout;
import dev.rivulet.rdma.verbs.sys.RdmaConnParam;
import dev.rivulet.rdma.verbs.sys.Rdmacm;
import dev.rivulet.rdma.verbs.sys.VerbsException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static dev.rivulet.rdma.verbs.sys.VerbsConstants.*;

/**
 * Rivulet over ibverbs reliable connections ({@code verbs://host:port}): one device port and protection domain per
 * transport, one RC queue pair and completion queue per connection, connected after core's handshake on a TCP
 * bootstrap connection (TLS and the shared secret as on every transport), which then stays open as the liveness
 * channel. Options: {@link VerbsOptions}; see {@code docs/verbs-transport.md}.
 *
 * <p>Queue pairs are connected by rdma_cm ({@code verbs.connection=rdmacm}, the default: address, route and GID come
 * from the IP route, and a one-time ticket from the handshake ties the RDMA connection to the authenticated bootstrap
 * connection) or by exchanging queue pair numbers, LIDs and GIDs in the handshake ({@code manual}).
 */
public final class VerbsTransport extends AbstractTransport {

    private static final Logger log = LoggerFactory.getLogger(VerbsTransport.class);

    final VerbsDevice device;
    /** The transport's rdma_cm event channel; null for manual connections. */
    final CmEvents cm;
    final boolean manual;
    final int messageSize;
    private final int maxInline;
    private final int maxPoll;
    private final int signalInterval;
    private final int compVector;
    private final int ackTimeout;
    private final int retryCount;
    private final Capabilities caps;
    /** One completion channel per polling thread, over the queues of the connections that live there. */
    private final Map<ProgressLoop, CompletionWaiter> waiters = new ConcurrentHashMap<>();

    static VerbsTransport open(TransportConfig config) {
        config.checkOptions("verbs", VerbsOptions.ALL);
        boolean manual = config.get(VerbsOptions.CONNECTION).equals("manual");
        int gidIndex = config.get(VerbsOptions.GID_INDEX);
        if (!manual && gidIndex >= 0) {
            throw new InvalidRequestException("verbs.gidIndex applies to verbs.connection=manual; rdma_cm chooses "
                    + "the GID from the IP route");
        }
        checkDepths(config);
        if (!manual && !Rdmacm.isAvailable()) {
            throw new TransportUnavailableException("verbs is unavailable: rdma_cm connections need librdmacm ("
                    + Rdmacm.unavailableReason().orElse("") + "); verbs.connection=manual does without");
        }
        VerbsDevice device = VerbsDevice.open(config.get(VerbsOptions.DEVICE), config.get(VerbsOptions.PORT), manual,
                gidIndex);
        CmEvents cm = null;
        try {
            cm = manual ? null : cmEvents(device);
            return new VerbsTransport(config, device, cm, manual);
        } catch (RuntimeException | Error e) {
            if (cm != null) {
                cm.close();
            }
            device.close();
            throw e;
        }
    }

    private static CmEvents cmEvents(VerbsDevice device) {
        try {
            return new CmEvents(device.name);
        } catch (VerbsException e) {
            throw new TransportUnavailableException("verbs is unavailable: no rdma_cm event channel (" + e.getMessage()
                    + "; is the rdma_ucm module loaded?); verbs.connection=manual does without");
        }
    }

    /** Queue depths that no device takes, or that a 24-bit credit grant cannot cover, are refused before opening. */
    static void checkDepths(TransportConfig config) {
        if (config.receiveQueueDepth() > ImmediateWord.MAX_CREDITS - VerbsWire.CONTROL_SLOTS) {
            throw new InvalidRequestException("receiveQueueDepth " + config.receiveQueueDepth() + " exceeds what a "
                    + "verbs immediate can grant (" + (ImmediateWord.MAX_CREDITS - VerbsWire.CONTROL_SLOTS) + ")");
        }
    }

    private VerbsTransport(TransportConfig config, VerbsDevice device, CmEvents cm, boolean manual) {
        super("verbs/" + device.name, config, device::register, VerbsOptions.ALL);
        // What failing and closing connections need here, loaded while the process can open files (ErrorPathClasses).
        ErrorPathClasses.loadNests(VerbsWire.class, SendQueue.class, SendChain.class, ReceiveRing.class,
                VerbsReceives.class, VerbsRma.class, RdmaWire.class, ConnectionFate.class, OwedReceives.class,
                WriteTimeout.class, LivenessChannel.class);
        ErrorPathClasses.load(CompletionErrors.class);
        this.device = device;
        this.cm = cm;
        this.manual = manual;
        this.messageSize = config.get(VerbsOptions.MESSAGE_SIZE);
        this.maxPoll = config.get(VerbsOptions.MAX_POLL);
        this.signalInterval = config.get(VerbsOptions.SIGNAL_INTERVAL);
        this.ackTimeout = config.get(VerbsOptions.ACK_TIMEOUT);
        this.retryCount = config.get(VerbsOptions.RETRY_COUNT);
        int vector = config.get(VerbsOptions.COMP_VECTOR);
        if (vector >= device.numCompVectors) {
            throw new InvalidRequestException("verbs.compVector " + vector + " but " + device + " has "
                    + device.numCompVectors + " completion vectors");
        }
        this.compVector = vector;
        int sendWr = config.sendQueueDepth() + VerbsWire.EXTRA_SEND_SLOTS;
        int recvWr = config.receiveQueueDepth() + VerbsWire.CONTROL_SLOTS;
        if (sendWr > device.maxQpWr || recvWr > device.maxQpWr || sendWr + recvWr + 1 > device.maxCqe) {
            throw new InvalidRequestException("queue depths send " + config.sendQueueDepth() + " / receive "
                    + config.receiveQueueDepth() + " exceed " + device + "'s limits (max_qp_wr " + device.maxQpWr
                    + ", max_cqe " + device.maxCqe + ", with " + VerbsWire.EXTRA_SEND_SLOTS + " and "
                    + VerbsWire.CONTROL_SLOTS + " slots for protocol words)");
        }
        this.maxInline = probeInline(config.get(VerbsOptions.MAX_INLINE), sendWr, recvWr);
        this.caps = capabilities(device.name, QueuePair.initiatorDepth(device), device.atomicCap, device.maxMsgSize,
                config, messageSize, maxInline);
    }

    /**
     * What the device grants a queue pair of this transport's sizes for inline data: a scratch CQ and QP asked for
     * {@code wanted} bytes report back what they got ({@code max_inline_data}); 0 when even asking fails.
     */
    private int probeInline(int wanted, int sendWr, int recvWr) {
        if (wanted == 0) {
            return 0;
        }
        try {
            QueuePair probe = QueuePair.createManual(device, MemorySegment.NULL,
                    new QueuePair.Sizes(sendWr, recvWr, wanted, 0));
            int got = probe.maxInline;
            probe.destroy();
            return Math.min(wanted, got);
        } catch (RuntimeException e) {
            log.info("{} grants no inline data for queue pairs of this size ({}); sends are not inlined", device,
                    e.getMessage());
            return 0;
        }
    }

    /**
     * What a verbs endpoint offers. Sends and puts complete {@link Completion#LOCAL}ly as far as Rivulet promises
     * (an RC completion means the responder's device acknowledged the request; that the bytes are in its memory is
     * what a flush establishes); {@code flush} is {@link Completion#REMOTE} for everything before it (a zero-length
     * RDMA read behind them). Atomics are the 64-bit fetch-and-add (also as add), compare-and-swap and swap (a
     * compare-and-swap repeated until it takes: verbs has no exchange), offered only
     * when the device reports atomics ({@code atomic_cap != IBV_ATOMIC_NONE}) and can keep one in flight. The device
     * checks keys, windows and rights itself (each grant is a registration of exactly its window and rights), with
     * rkeys it numbers itself (0 key bits to guess), for every connection of the protection domain (no grant scope);
     * a refused request puts the queue pair in the error state, so the connection closes. Without reads (an
     * initiator depth of 0) there are no gets and no atomics, and a flush only waits for completions.
     */
    public static Capabilities capabilities(String device, int initiatorDepth, int atomicCap, long maxMsgSize,
                                     TransportConfig config, int messageSize, int maxInline) {
        EnumSet<Operation> ops = EnumSet.of(Operation.SEND, Operation.RECEIVE, Operation.PUT, Operation.FENCE,
                Operation.FLUSH);
        if (initiatorDepth > 0) {
            ops.add(Operation.GET);
            if (atomicCap != IBV_ATOMIC_NONE) {
                ops.addAll(Set.of(Operation.ATOMIC_FETCH_ADD_64, Operation.ATOMIC_ADD_64,
                        Operation.ATOMIC_COMPARE_SWAP_64, Operation.ATOMIC_SWAP_64));
            }
        }
        long maxRma = maxMsgSize <= 0 ? 1L << 31 : maxMsgSize;
        return new Capabilities("verbs/" + device, ops, messageSize, maxInline, 1,
                EnumSet.of(Ordering.SEND_AFTER_SEND, Ordering.COMPLETION_IN_ORDER), config.sendQueueDepth(),
                config.receiveQueueDepth(), 12.5e9, Duration.ofNanos(2_000),
                Completion.LOCAL, Completion.LOCAL, Completion.REMOTE, maxRma, true, 0, false, true);
    }

    /** A new listener's receive budget: what its connections together may make it commit on their word. */
    ReceiveBudget listenerBudget() {
        return ReceiveBudget.forListener(config.security(), metrics.budgetCounters());
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    /** The hello's service parameters: both sides must agree on message size and connection kind. */
    byte[] service() {
        return SetupMessages.service(messageSize, manual ? SetupMessages.MANUAL : SetupMessages.RDMACM);
    }

    // ------------------------------------------------------------------------------------------------ connect

    @Override
    public Mono<Endpoint> connect(String address) {
        return blockingSetUp(() -> {
            VerbsAddress a = VerbsAddress.parse(address);
            checkImplied(a);
            SecuritySettings security = config.security();
            ProgressLoop loop = progress.nextLoop();
            CompletionWaiter waiter = waiter(loop);
            long deadline = System.nanoTime() + config.connectTimeout().toNanos();
            Socket plain = new Socket();
            Socket s = plain;
            VerbsWire[] wire = {null};
            MemorySegment[] cmId = {MemorySegment.NULL};
            try {
                s = BootstrapSockets.connect(plain, a.host(), a.port(), config, deadline);
                HandshakeIo io = new SocketHandshakeIo(s, deadline);
                String remote = VerbsAddress.uri(a.host(), a.port(), manual ? "connection=manual" : "");
                if (manual) {
                    QueuePair qp = QueuePair.createManual(device, waiter.channel(), sizes(waiter));
                    wire[0] = newWire(qp, loop, remote);
                    qp.toInit(device);
                    wire[0].postInitialReceives();
                    byte[] reply = Handshake.client(io, security, Handshake.KIND_FABRIC, service(),
                            qp.describe(device).encode());
                    SetupMessages.QpInfo peer = SetupMessages.QpInfo.decode(reply);
                    qp.toRtr(device, peer);
                    qp.toRts(device, peer, ackTimeout, retryCount);
                    LivenessChannel.sendReady(s); // the listener's queue pair may send to ours from now on
                } else {
                    byte[] reply = Handshake.client(io, security, Handshake.KIND_FABRIC, service(), new byte[0]);
                    SetupMessages.CmTicket ticket = SetupMessages.CmTicket.decode(reply);
                    connectCm(plain.getInetAddress(), ticket, loop, waiter, remote, deadline, wire, cmId);
                }
                s.setSoTimeout(0);
                return start(wire[0], loop, waiter, s);
            } catch (IOException e) {
                abandon(wire[0], cmId[0], s, plain);
                throw new ConnectionRefusedException("cannot reach " + address + ": " + e.getMessage(), e);
            } catch (RuntimeException e) {
                abandon(wire[0], cmId[0], s, plain);
                throw e;
            }
        });
    }

    /**
     * The rdma_cm half of a client's set-up: resolve the listener's address and route to this transport's device,
     * create the queue pair on the id, post the first receives, connect presenting the ticket, and check the reply
     * echoes it.
     */
    private void connectCm(InetAddress peer, SetupMessages.CmTicket ticket, ProgressLoop loop,
                           CompletionWaiter waiter, String remote, long deadline, VerbsWire[] wire,
                           MemorySegment[] cmId) {
        CmEvents.Waiter events = new CmEvents.Waiter();
        MemorySegment id = cm.createId();
        cmId[0] = id;
        cm.register(id, events);
        try (Arena a = Arena.ofConfined()) {
            check("rdma_resolve_addr", Rdmacm.resolveAddr(id, MemorySegment.NULL,
                    LibcSockets.sockaddr(a, new InetSocketAddress(peer, ticket.cmPort())), millisLeft(deadline)));
            events.await(RDMA_CM_EVENT_ADDR_RESOLVED, deadline, "resolving " + peer.getHostAddress()
                    + " to an RDMA device");
            check("rdma_resolve_route", Rdmacm.resolveRoute(id, millisLeft(deadline)));
            events.await(RDMA_CM_EVENT_ROUTE_RESOLVED, deadline, "resolving the route to " + peer.getHostAddress());
            QueuePair qp = QueuePair.createOnCmId(device, id, waiter.channel(), sizes(waiter), cm);
            cmId[0] = MemorySegment.NULL; // the queue pair owns the id now
            wire[0] = newWire(qp, loop, remote);
            wire[0].postInitialReceives();
            MemorySegment param = RdmaConnParam.allocate(a);
            RdmaConnParam.set(param, a.allocateFrom(java.lang.foreign.ValueLayout.JAVA_BYTE, ticket.privateData()),
                    QueuePair.responderResources(device), QueuePair.initiatorDepth(device), retryCount,
                    QueuePair.RNR_RETRY_FOREVER);
            check("rdma_connect", Rdmacm.connect(id, param));
            CmEvents.Event established = events.await(RDMA_CM_EVENT_ESTABLISHED, deadline, "connecting to "
                    + remote);
            if (!ticket.presentedIn(established.privateData())) {
                throw new HandshakeException("the RDMA peer that accepted is not the listener this client "
                        + "authenticated (no ticket echoed)");
            }
            VerbsWire w = wire[0];
            events.forward(e -> {
                if (e.type() == RDMA_CM_EVENT_DISCONNECTED || e.type() == RDMA_CM_EVENT_DEVICE_REMOVAL) {
                    w.cmDisconnected();
                }
            });
        }
    }

    static void check(String call, int rc) {
        if (rc != 0) {
            throw new VerbsException(call, -rc);
        }
    }

    static int millisLeft(long deadline) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, (deadline - System.nanoTime()) / 1_000_000));
    }

    /** An address naming options must name this transport's: a client cannot switch device or connection kind. */
    private void checkImplied(VerbsAddress a) {
        for (Map.Entry<String, String> e : a.options().entrySet()) {
            String ours = switch (e.getKey()) {
                case "verbs.device" -> e.getValue().equals("auto") ? "auto" : device.name;
                case "verbs.port" -> e.getValue().equals("0") ? "0" : Integer.toString(device.port);
                case "verbs.gidIndex" -> Integer.toString(config.get(VerbsOptions.GID_INDEX));
                case "verbs.connection" -> manual ? "manual" : "rdmacm";
                default -> e.getValue();
            };
            if (!ours.equals(e.getValue())) {
                throw new InvalidRequestException("address names " + e.getKey() + "=" + e.getValue()
                        + " but this transport runs " + ours);
            }
        }
    }

    /** Sizes of a connection's queues; the CQ signals {@code waiter}'s channel on its completion vector. */
    QueuePair.Sizes sizes(CompletionWaiter waiter) {
        return new QueuePair.Sizes(config.sendQueueDepth() + VerbsWire.EXTRA_SEND_SLOTS,
                config.receiveQueueDepth() + VerbsWire.CONTROL_SLOTS, maxInline, waiter.compVector());
    }

    /** The polling thread's completion channel, made the first time a connection lands on it. */
    CompletionWaiter waiter(ProgressLoop loop) {
        return waiters.computeIfAbsent(loop, l -> {
            int vector = compVector >= 0 ? compVector : progress.loops().indexOf(l) % device.numCompVectors;
            CompletionWaiter w = new CompletionWaiter(device, Math.max(0, vector));
            l.waiter(w);
            return w;
        });
    }

    /** A wire over {@code qp} living on {@code loop}. */
    VerbsWire newWire(QueuePair qp, ProgressLoop loop, String remote) {
        try {
            return new VerbsWire(qp, memory, caps, remote, loop, messageSize, maxInline, maxPoll, signalInterval,
                    QueuePair.initiatorDepth(device) > 0, config.liveness());
        } catch (RuntimeException | Error e) {
            qp.destroy(); // nothing else owns it yet
            throw e;
        }
    }

    /** Starts the endpoint of an established connection on its polling thread, watched over {@code socket}. */
    EndpointEngine start(VerbsWire wire, ProgressLoop loop, CompletionWaiter waiter, Socket socket)
            throws IOException {
        LivenessChannel channel = new LivenessChannel(socket);
        wire.attach(channel);
        waiter.add(wire);
        wire.beforeClose(() -> waiter.remove(wire));
        EndpointEngine e = newEndpoint(wire, loop);
        channel.watch(wire, config.liveness(), "rivulet-verbs-liveness");
        return e;
    }

    /** Lets go of whatever a set-up that did not finish made. */
    void abandon(VerbsWire wire, MemorySegment cmId, Socket s, Socket plain) {
        if (wire != null) {
            wire.discard();
        } else if (cmId != null && cmId.address() != 0) {
            cm.destroyLater(cmId);
        }
        BootstrapSockets.closeQuietly(s);
        BootstrapSockets.closeQuietly(plain);
    }

    /** The liveness settings a listener's bootstrap connections are tuned and watched with. */
    LivenessSettings liveness() {
        return config.liveness();
    }

    int ackTimeout() {
        return ackTimeout;
    }

    int retryCount() {
        return retryCount;
    }

    ProgressLoop nextLoop() {
        return progress.nextLoop();
    }

    // ------------------------------------------------------------------------------------------------ bind

    @Override
    public Mono<Listener> bind(String address) {
        return blockingSetUp(() -> {
            VerbsAddress a = VerbsAddress.parse(address);
            checkImplied(a);
            VerbsListener l = BootstrapSockets.listen(a.host(), a.port(), address, ss -> new VerbsListener(this, ss,
                    VerbsAddress.uri(a.host(), ss.getLocalPort(), manual ? "connection=manual" : ""),
                    config.security()));
            track(l);
            l.start();
            return l;
        });
    }

    @Override
    protected void closeResources() {
        if (cm != null) {
            cm.close();
        }
        waiters.values().forEach(CompletionWaiter::close);
        device.close();
    }
}
