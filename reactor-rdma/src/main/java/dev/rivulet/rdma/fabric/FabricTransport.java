package dev.rivulet.rdma.fabric;

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
import dev.rivulet.core.loop.ErrorPathClasses;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.handshake.Handshake;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.core.handshake.SocketHandshakeIo;
import dev.rivulet.core.liveness.LivenessSettings;
import dev.rivulet.core.spi.DeviceMemoryRegistrar;
import dev.rivulet.rdma.FabricOptions;
import dev.rivulet.rdma.fabric.sys.ProviderParameters;
import dev.rivulet.rdma.bootstrap.BootstrapSockets;
import dev.rivulet.rdma.bootstrap.LivenessChannel;
import dev.rivulet.rdma.wire.ConnectionFate;
import dev.rivulet.rdma.wire.OwedReceives;
import dev.rivulet.rdma.wire.RdmaWire;
import dev.rivulet.rdma.wire.WriteTimeout;
import dev.rivulet.rdma.fabric.sys.FidEp;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static dev.rivulet.rdma.fabric.sys.FiConstants.*;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Rivulet over libfabric RDM endpoints: one fabric/domain/AV per transport, one endpoint and completion queue per
 * connection, connected through the {@link Bootstrap} exchange. Options: {@link FabricOptions}; see
 * {@code docs/fabric-transport.md} for what completion waiting and data progress change.
 */
public final class FabricTransport extends AbstractTransport {

    static final int DEFAULT_EAGER = 64 << 10;

    private final FabricDomain fabric;
    private final Capabilities caps;
    private final int eagerSize;
    /** Whether completion queues get a wait fd ({@code fabric.completionWait=fd}). */
    private final boolean completionWaitFd;
    /** The fabric name ({@code fi_getname}) of each open endpoint, as a peer or a stranger on the path sees it. */
    private final Map<Endpoint, byte[]> names = new ConcurrentHashMap<>();
    /** One sleeping strategy per polling thread, over the queues of the endpoints that live there. */
    private final Map<ProgressLoop, CqWaiter> waiters = new ConcurrentHashMap<>();
    /** The receive budget of connections this side dials or attaches (listeners have one each). */
    private final ReceiveBudget dialled;

    static FabricTransport open(TransportConfig config) {
        config.checkOptions("libfabric", FabricOptions.ALL);
        FabricDomain fabric = FabricDomain.open(config.get(FabricOptions.PROVIDER), dataProgress(config),
                queueSize(config));
        try {
            return new FabricTransport(config, fabric);
        } catch (RuntimeException e) {
            fabric.close();
            throw e;
        }
    }

    private FabricTransport(TransportConfig config, FabricDomain fabric) {
        super("libfabric/" + fabric.provider, config, fabric::register, FabricOptions.ALL);
        // What failing and closing connections need here, loaded while the process can open files (ErrorPathClasses).
        ErrorPathClasses.loadNests(FabricWire.class, FabricLink.class, FabricReceives.class, FabricFailures.class,
                FabricRma.class, RendezvousSender.class, RendezvousReader.class, RendezvousRequest.class,
                RdmaWire.class, ConnectionFate.class, OwedReceives.class, WriteTimeout.class, LivenessChannel.class);
        ErrorPathClasses.load(dev.rivulet.rdma.fabric.sys.FiCqErrEntry.class);
        this.fabric = fabric;
        String provider = fabric.provider;
        String name = name();
        this.eagerSize = config.get(FabricOptions.EAGER_SIZE);
        this.completionWaitFd = config.get(FabricOptions.COMPLETION_WAIT).equals("fd");
        this.dialled = ReceiveBudget.dialled(config.security(), metrics.budgetCounters());
        long maxMessage = config.get(FabricOptions.MAX_MESSAGE_SIZE);
        EnumSet<Operation> ops = EnumSet.of(Operation.SEND, Operation.RECEIVE, Operation.PUT, Operation.GET,
                Operation.FLUSH, Operation.FENCE);
        ops.addAll(probeAtomics());
        this.caps = new Capabilities(name, ops, maxMessage, 0, 1,
                EnumSet.of(Ordering.SEND_AFTER_SEND), config.sendQueueDepth(), config.receiveQueueDepth(),
                provider.equals("shm") ? 10e9 : 2e9, Duration.ofNanos(provider.equals("shm") ? 1_000 : 10_000),
                // Sends complete when the provider transmitted them; puts are posted FI_DELIVERY_COMPLETE (shm
                // copies them synchronously), so they complete at the target, and so does a flush of them. A flush
                // does not make earlier sends remote: the provider reports only their transmission.
                Completion.LOCAL, Completion.REMOTE, Completion.LOCAL,
                fabric.maxMsgSize <= 0 || fabric.maxMsgSize > (1L << 30) ? 1L << 30 : fabric.maxMsgSize,
                fabric.checksRemoteKeys, fabric.remoteKeyBits(), false, fabric.refusalDropsConnection);
    }

    /** The {@code fi_domain_attr.data_progress} hint {@code fabric.dataProgress} names. */
    static int dataProgress(TransportConfig config) {
        return switch (config.get(FabricOptions.DATA_PROGRESS)) {
            case "manual" -> FI_PROGRESS_MANUAL;
            case "auto" -> FI_PROGRESS_AUTO;
            default -> FI_PROGRESS_UNSPEC;
        };
    }

    /** Which atomics the provider validates for 64- and 32-bit unsigned words on a scratch endpoint. */
    private Set<Operation> probeAtomics() {
        EnumSet<Operation> ops = EnumSet.noneOf(Operation.class);
        if (!fabric.atomics) {
            return ops;
        }
        FabricDomain.EndpointHandles h = fabric.openEndpoint(16, false);
        try (Arena tmp = Arena.ofConfined()) {
            MemorySegment count = tmp.allocate(JAVA_LONG);
            for (int dt : new int[]{FI_UINT64, FI_UINT32}) {
                boolean w64 = dt == FI_UINT64;
                if (FidEp.atomicvalid(h.ep(), dt, FI_SUM, count) == 0) {
                    ops.add(w64 ? Operation.ATOMIC_ADD_64 : Operation.ATOMIC_ADD_32);
                }
                if (FidEp.fetchAtomicvalid(h.ep(), dt, FI_SUM, count) == 0) {
                    ops.add(w64 ? Operation.ATOMIC_FETCH_ADD_64 : Operation.ATOMIC_FETCH_ADD_32);
                }
                if (FidEp.fetchAtomicvalid(h.ep(), dt, FI_ATOMIC_WRITE, count) == 0) {
                    ops.add(w64 ? Operation.ATOMIC_SWAP_64 : Operation.ATOMIC_SWAP_32);
                }
                if (FidEp.compareAtomicvalid(h.ep(), dt, FI_CSWAP, count) == 0) {
                    ops.add(w64 ? Operation.ATOMIC_COMPARE_SWAP_64 : Operation.ATOMIC_COMPARE_SWAP_32);
                }
            }
        } finally {
            closeHandles(h);
        }
        return ops;
    }

    String provider() {
        return fabric.provider;
    }

    /** The fabric address of one of this transport's endpoints, or null when it is closed. */
    byte[] fabricName(Endpoint e) {
        byte[] n = names.get(e);
        return n == null ? null : n.clone();
    }

    /** The fabric, domain and address vector of this transport (tests inspect what it holds). */
    FabricDomain domain() {
        return fabric;
    }

    int eagerSize() {
        return eagerSize;
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    /** Besides the common ones: device memory registration ({@code FI_HMEM}), whether or not the provider has it. */
    @Override
    public <T> Optional<T> extension(Class<T> type) {
        if (type == DeviceMemoryRegistrar.class) {
            return Optional.of(type.cast(new FabricDeviceRegistrar(this)));
        }
        return super.extension(type);
    }

    @Override
    public Mono<Endpoint> connect(String address) {
        return blockingSetUp(() -> {
            FabricAddress a = FabricAddress.parse(address, fabric.provider);
            checkProvider(a);
            SecuritySettings security = config.security();
            FabricDomain.EndpointHandles h = fabric.openEndpoint(cqSize(), completionWaitFd);
            Socket plain = new Socket();
            Socket s = plain;
            long peer = FI_ADDR_NOTAVAIL;
            FabricHello hello = null;
            try {
                long deadline = System.nanoTime() + config.connectTimeout().toNanos();
                s = BootstrapSockets.connect(plain, a.host(), a.port(), config, deadline);
                FabricHello.Answer answer = FabricHello.Answer.parse(Handshake.client(new SocketHandshakeIo(s,
                        deadline), security, Handshake.KIND_FABRIC, Bootstrap.service(fabric.provider, eagerSize),
                        h.name()));
                checkPeerName(answer.name(), s.getInetAddress(), s.getInetAddress());
                peer = connectPeer(h, answer.name());
                // We connect first: the listener's endpoint sends nothing until this hello came from our name.
                hello = FabricHello.toListener(fabric, memory, h, peer, answer.token());
                Socket bootstrap = s;
                int[] ready = {0};
                // Polled again and again while the hello goes out: once READY came, it is not looked for again, or
                // a later look (nothing new to read) would forget it and awaitReady take the first heartbeat for it.
                hello.send(deadline, () -> ready[0] == 0 && (ready[0] = LivenessChannel.pollReady(bootstrap)) < 0);
                if (ready[0] == 0) {
                    LivenessChannel.awaitReady(s, deadline); // the listener took the hello: it may send now
                }
                s.setSoTimeout(0);
                hello.release(); // the send completed
                hello = null;
                return newEndpoint(h, peer, s, a.uri(), dialled.connection(true, caps.maxMessageSize(),
                        config.liveness().heartbeatInterval().toNanos(), System.nanoTime()));
            } catch (IOException | RuntimeException e) {
                BootstrapSockets.closeQuietly(s);
                BootstrapSockets.closeQuietly(plain);
                closeHandles(h, peer, hello);
                throw e instanceof RuntimeException r ? r
                        : new ConnectionRefusedException("cannot reach " + address + ": " + e.getMessage(), e);
            }
        });
    }

    /** The liveness settings a listener's bootstrap connections are tuned and watched with. */
    LivenessSettings liveness() {
        return config.liveness();
    }

    /**
     * Checks an endpoint name a peer sent (its form, and that it names the host the bootstrap connection came from,
     * {@code from}, which connected to {@code to}) before anything is opened for the peer or the name may go into
     * the address vector.
     */
    void checkPeerName(byte[] name, java.net.InetAddress from, java.net.InetAddress to) {
        Bootstrap.checkName(name, fabric.sampleName(), fabric.addrFormat, from, to,
                config.security().peerAddressCheck(), fabric.provider);
        checkPeer(name);
    }

    /**
     * An endpoint to a libfabric program that is not Rivulet, named by its raw endpoint name ({@code fi_getname}
     * bytes handed over out of band, like a peer's address, RMA address, length and key). Only one-sided operations
     * make sense on it: put, get, atomics, flush and fence. There is no credit protocol and no liveness channel, so a
     * {@code send} would wait for credits that never come and a vanished peer shows only as failing operations.
     */
    public Mono<Endpoint> attach(byte[] peerEndpointName) {
        byte[] name = peerEndpointName.clone();
        return blockingSetUp(() -> {
            refuseSameProcessAttach(name);
            FabricDomain.EndpointHandles h = fabric.openEndpoint(cqSize(), completionWaitFd);
            try {
                return newEndpoint(h, connectPeer(h, name), null, "fabric-raw://"
                        + java.util.HexFormat.of().formatHex(name), dialled.connection(true, caps.maxMessageSize(),
                        config.liveness().heartbeatInterval().toNanos(), System.nanoTime()));
            } catch (RuntimeException e) {
                closeHandles(h);
                throw e;
            }
        });
    }

    /**
     * An shm endpoint of this same process cannot be attached to. Its owner would learn our name through the
     * provider's name exchange and keep it in its AV with no Rivulet peer to remove it, so our endpoint could never be
     * closed safely (see {@link SameProcessShm}); a Rivulet endpoint in the same JVM is reached with
     * {@link #connect}, which handles that.
     */
    private void refuseSameProcessAttach(byte[] peerName) {
        if (fabric.sharesPeerMappings && SameProcessShm.PROCESS.ownName(peerName)) {
            throw new InvalidRequestException("attach is for programs in other processes; this shm endpoint belongs "
                    + "to this process (connect to its Rivulet listener instead)");
        }
    }

    private int cqSize() {
        return queueSize(config);
    }

    /**
     * The most an endpoint keeps posted at once, which sizes its completion queue and the provider's transmit and
     * receive queues: as many as its context slots (FabricWire), the send and receive windows plus control words.
     */
    static int queueSize(TransportConfig config) {
        return config.sendQueueDepth() + config.receiveQueueDepth() + FabricWire.CONTROL_SLOTS + 16;
    }

    private void checkProvider(FabricAddress a) {
        if (!a.provider().equals(fabric.provider)) {
            throw new InvalidRequestException("address names provider '" + a.provider() + "' but this transport runs '"
                    + fabric.provider + "'");
        }
    }

    /**
     * Refuses, before answering a handshake, a peer that is an shm endpoint of this process already closed: its name
     * must not reach the AV ({@link SameProcessShm}).
     */
    void checkPeer(byte[] peerName) {
        if (fabric.sharesPeerMappings && SameProcessShm.PROCESS.closedHere(peerName)) {
            throw new ConnectionRefusedException("the connecting shm endpoint of this process is already closed");
        }
    }

    /** Puts a peer's (checked) name into the AV for endpoint {@code h}; returns its {@code fi_addr_t}. */
    long connectPeer(FabricDomain.EndpointHandles h, byte[] peerName) {
        return fabric.connectPeer(h, peerName);
    }

    /**
     * What one connection costs this side before it sends anything, held from a listener's budget while it lasts
     * where peers cannot authenticate: an estimate from the sizes the provider's per-endpoint pools are given
     * (two pools of 1024 of rxm's buffers, {@code ProviderParameters}), a mebibyte for its queues, and the eager
     * buffers posted for a peer from the start (its window of four, and the control words'). What an endpoint really
     * holds is measured by {@code FabricConnectionMemoryTest}.
     */
    long connectionCost() {
        return 2L * 1024 * ProviderParameters.rxmBufferSize() + (1L << 20)
                + (long) (4 + FabricWire.CONTROL_SLOTS) * eagerSize;
    }

    /** A new listener's receive budget: what its connections together may make it commit ahead of their bytes. */
    ReceiveBudget listenerBudget() {
        return ReceiveBudget.forListener(config.security(), metrics.budgetCounters());
    }

    /**
     * Wires up an endpoint once its peer ({@code peer}, from {@link #connectPeer}) is in the AV (bootstrap threads),
     * with the peer's share of a receive budget. On failure the endpoint is let go here, its peer removed from the AV
     * again.
     */
    EndpointEngine newEndpoint(FabricDomain.EndpointHandles h, long peer, Socket socket, String remote,
                               ReceiveBudget.Connection budget) {
        try {
            return wire(h, peer, socket, remote, budget);
        } catch (RuntimeException | IOException e) {
            fabric.closeEndpoint(h, peer, () -> { });
            throw e instanceof RuntimeException r ? r
                    : new ConnectionRefusedException("connection set-up failed: " + e.getMessage(), e);
        }
    }

    private EndpointEngine wire(FabricDomain.EndpointHandles h, long peer, Socket socket, String remote,
                                ReceiveBudget.Connection budget) throws IOException {
        LivenessChannel channel = socket == null ? null : new LivenessChannel(socket);
        ProgressLoop loop = progress.nextLoop();
        FabricWire wire = new FabricWire(fabric, memory, caps, h, peer, eagerSize, remote, loop, config.liveness(),
                budget);
        if (channel != null) {
            wire.attach(channel); // ends with the wire: a goodbye after an orderly close, an abort after a break
        }
        CqWaiter waiter = waiters.computeIfAbsent(loop, l -> {
            CqWaiter w = new CqWaiter(fabric.fabric);
            l.waiter(w);
            return w;
        });
        waiter.add(h.cq(), h.waitFd());
        wire.beforeClose(() -> waiter.remove(h.cq(), h.waitFd()));
        EndpointEngine e = newEndpoint(wire, loop);
        names.put(e, h.name());
        e.onClose().subscribe(null, err -> names.remove(e), () -> names.remove(e));
        if (channel != null) {
            channel.watch(wire, config.liveness(), "rivulet-fabric-liveness");
        }
        return e;
    }

    FabricDomain.EndpointHandles fabricEndpoint() {
        return fabric.openEndpoint(cqSize(), completionWaitFd);
    }

    /** Lets go of an endpoint that never got wired up (or already was let go: then nothing happens). */
    void closeHandles(FabricDomain.EndpointHandles h) {
        closeHandles(h, FI_ADDR_NOTAVAIL);
    }

    /** As {@link #closeHandles(FabricDomain.EndpointHandles)}, with its peer ({@code FI_ADDR_NOTAVAIL}: none) leaving the AV. */
    void closeHandles(FabricDomain.EndpointHandles h, long peer) {
        fabric.closeEndpoint(h, peer, () -> { });
    }

    /**
     * As {@link #closeHandles(FabricDomain.EndpointHandles, long)} for a set-up that stopped with its fabric hello
     * ({@code hello}, null for none) perhaps still posted: withdrawn first, its buffer freed once the endpoint is
     * closed in libfabric.
     */
    void closeHandles(FabricDomain.EndpointHandles h, long peer, FabricHello hello) {
        if (hello == null) {
            closeHandles(h, peer);
            return;
        }
        hello.withdraw();
        fabric.closeEndpoint(h, peer, hello::release);
    }

    /** The listener's side of {@link FabricHello}: a receive posted on {@code h} for the client ({@code peer}). */
    FabricHello expectHello(FabricDomain.EndpointHandles h, long peer) {
        return FabricHello.expect(fabric, memory, h, peer);
    }

    @Override
    public Mono<Listener> bind(String address) {
        return blockingSetUp(() -> {
            FabricAddress a = FabricAddress.parse(address, fabric.provider);
            checkProvider(a);
            FabricListener l = BootstrapSockets.listen(a.host(), a.port(), address, ss -> new FabricListener(this, ss,
                    new FabricAddress(a.host(), ss.getLocalPort(), fabric.provider).uri(), config.security()));
            track(l);
            l.start();
            return l;
        });
    }

    @Override
    protected void closeResources() {
        waiters.values().forEach(CqWaiter::close);
        fabric.close();
    }
}
