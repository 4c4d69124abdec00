package dev.rivulet.rdma.fabric;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Operation;
import dev.rivulet.core.Ordering;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.engine.EndpointEngine;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.MemoryDomain;
import dev.rivulet.core.metrics.TransportMetrics;
import dev.rivulet.core.progress.ProgressEngine;
import dev.rivulet.rdma.libfabric.Fid;
import dev.rivulet.rdma.libfabric.FidEp;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.rivulet.rdma.libfabric.FiConstants.*;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Rivulet over libfabric RDM endpoints: one fabric/domain/AV per transport, one endpoint and completion queue per
 * connection, connected through the {@link Bootstrap} exchange. Options: {@code provider} (default {@code tcp}),
 * {@code fabric.eagerSize} (receive buffer size: larger messages go by rendezvous, default 64 KiB) and
 * {@code fabric.maxMessageSize} (default 16 MiB).
 */
public final class FabricTransport implements Transport {

    private static final Logger log = LoggerFactory.getLogger(FabricTransport.class);
    static final int DEFAULT_EAGER = 64 << 10;

    private final TransportConfig config;
    private final FabricDomain fabric;
    private final ProgressEngine progress;
    private final MemoryDomain memory;
    private final TransportMetrics metrics;
    private final Capabilities caps;
    private final int eagerSize;
    private final Set<EndpointEngine> endpoints = ConcurrentHashMap.newKeySet();
    private final Set<FabricListener> listeners = ConcurrentHashMap.newKeySet();
    private final AtomicBoolean disposed = new AtomicBoolean();
    private final Sinks.Empty<Void> onDispose = Sinks.empty();

    FabricTransport(TransportConfig config) {
        this.config = config;
        String provider = config.optionOr("provider", "tcp");
        this.eagerSize = config.intOption("fabric.eagerSize", DEFAULT_EAGER);
        long maxMessage = config.intOption("fabric.maxMessageSize", 16 << 20);
        this.fabric = FabricDomain.open(provider);
        String name = "libfabric/" + provider;
        this.progress = new ProgressEngine("fabric-" + provider, config.progressThreads(), config.idleStrategy());
        this.memory = new MemoryDomain(name, fabric::register);
        this.metrics = new TransportMetrics(name, progress::busyRatio);
        if (config.meterRegistry() != null) {
            metrics.bindTo(config.meterRegistry());
        }
        EnumSet<Operation> ops = EnumSet.of(Operation.SEND, Operation.RECEIVE, Operation.PUT, Operation.GET,
                Operation.FLUSH, Operation.FENCE);
        ops.addAll(probeAtomics());
        this.caps = new Capabilities(name, ops, maxMessage, 0, 1,
                EnumSet.of(Ordering.SEND_AFTER_SEND), config.sendQueueDepth(), config.receiveQueueDepth(),
                provider.equals("shm") ? 10e9 : 2e9, Duration.ofNanos(provider.equals("shm") ? 1_000 : 10_000),
                "every earlier operation completed; completions of " + provider + " are requested with "
                        + (provider.equals("shm") ? "the provider's default (shm copies synchronously)"
                        : "FI_DELIVERY_COMPLETE") + ", so the data is at the target",
                fabric.maxMsgSize <= 0 || fabric.maxMsgSize > (1L << 30) ? 1L << 30 : fabric.maxMsgSize,
                fabric.checksRemoteKeys);
    }

    /** Which atomics the provider validates for 64- and 32-bit unsigned words on a scratch endpoint. */
    private Set<Operation> probeAtomics() {
        EnumSet<Operation> ops = EnumSet.noneOf(Operation.class);
        if (!fabric.atomics) {
            return ops;
        }
        FabricDomain.EndpointHandles h = fabric.openEndpoint(16);
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
            Fid.close(h.ep());
            Fid.close(h.cq());
        }
        return ops;
    }

    String provider() {
        return fabric.provider;
    }

    int eagerSize() {
        return eagerSize;
    }

    @Override
    public String name() {
        return caps.transport();
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    @Override
    public MemoryDomain memory() {
        return memory;
    }

    @Override
    public Mono<Endpoint> connect(String address) {
        return Mono.<Endpoint>fromCallable(() -> {
            checkOpen();
            FabricAddress a = FabricAddress.parse(address, fabric.provider);
            checkProvider(a);
            FabricDomain.EndpointHandles h = fabric.openEndpoint(cqSize());
            Socket s = new Socket();
            try {
                s.setTcpNoDelay(true);
                s.connect(a.socketAddress(), 10_000);
                Bootstrap.writeHello(s, fabric.provider, h.name(), eagerSize);
                byte[] peerName = Bootstrap.readReply(s, eagerSize);
                return newEndpoint(h, peerName, s, a.uri());
            } catch (IOException e) {
                Bootstrap.closeQuietly(s);
                closeHandles(h);
                throw new ConnectionRefusedException("cannot reach " + address + ": " + e.getMessage(), e);
            } catch (RuntimeException e) {
                Bootstrap.closeQuietly(s);
                closeHandles(h);
                throw e;
            }
        }).subscribeOn(Schedulers.boundedElastic());
    }

    /**
     * An endpoint to a libfabric program that is not Rivulet, named by its raw endpoint name ({@code fi_getname}
     * bytes handed over out of band, like a peer's address, RMA address, length and key). Only one-sided operations
     * make sense on it: put, get, atomics, flush and fence. There is no credit protocol and no liveness channel, so a
     * {@code send} would wait for credits that never come and a vanished peer shows only as failing operations.
     */
    public Mono<Endpoint> attach(byte[] peerEndpointName) {
        byte[] name = peerEndpointName.clone();
        return Mono.<Endpoint>fromCallable(() -> {
            checkOpen();
            FabricDomain.EndpointHandles h = fabric.openEndpoint(cqSize());
            try {
                refuseSameProcessShm(name);
                return wire(h, fabric.insert(name), null, "fabric-raw://" + java.util.HexFormat.of().formatHex(name),
                        () -> { });
            } catch (RuntimeException e) {
                closeHandles(h);
                throw e;
            }
        }).subscribeOn(Schedulers.boundedElastic());
    }

    private int cqSize() {
        return config.sendQueueDepth() + config.receiveQueueDepth() + FabricWire.CONTROL_SLOTS + 16;
    }

    private void checkProvider(FabricAddress a) {
        if (!a.provider().equals(fabric.provider)) {
            throw new InvalidRequestException("address names provider '" + a.provider() + "' but this transport runs '"
                    + fabric.provider + "'");
        }
    }

    private void checkOpen() {
        if (disposed.get()) {
            throw new ResourceClosedException("transport is disposed");
        }
    }

    /**
     * Names of the {@code shm} endpoints open in this JVM. libfabric 1.17's shm provider reuses a peer's own mapping
     * when the peer lives in the same process, so closing one side while the other still posts touches unmapped
     * memory and kills the JVM. Until that is handled, shm connections inside one process are refused.
     */
    private static final Set<String> LOCAL_SHM_NAMES = ConcurrentHashMap.newKeySet();

    void checkPeer(byte[] peerName) {
        refuseSameProcessShm(peerName);
    }

    private void refuseSameProcessShm(byte[] peerName) {
        if ("shm".equals(fabric.provider) && LOCAL_SHM_NAMES.contains(java.util.HexFormat.of().formatHex(peerName))) {
            throw new dev.rivulet.core.error.TransportUnavailableException("the shm provider cannot connect two "
                    + "endpoints of the same process safely (libfabric 1.17 shares the peer's mapping in-process, "
                    + "so an independent close crashes the JVM); use shm between processes, or tcp/sockets in one");
        }
    }

    /** Wires up an endpoint once both names are known (bootstrap threads). */
    EndpointEngine newEndpoint(FabricDomain.EndpointHandles h, byte[] peerName, Socket socket, String remote) {
        refuseSameProcessShm(peerName);
        long peer = fabric.insert(peerName);
        if ("shm".equals(fabric.provider)) {
            String mine = java.util.HexFormat.of().formatHex(h.name());
            LOCAL_SHM_NAMES.add(mine);
            Runnable forget = () -> LOCAL_SHM_NAMES.remove(mine);
            return wire(h, peer, socket, remote, forget);
        }
        return wire(h, peer, socket, remote, () -> { });
    }

    private EndpointEngine wire(FabricDomain.EndpointHandles h, long peer, Socket socket, String remote,
                                Runnable forget) {
        FabricWire wire = new FabricWire(fabric, memory, caps, h, peer, eagerSize, remote, () -> {
            forget.run();
            if (socket != null) {
                Bootstrap.goodbye(socket);
            }
        });
        EndpointEngine[] self = new EndpointEngine[1];
        EndpointEngine e = new EndpointEngine(wire, progress.nextLoop(), memory, metrics, config.observer(),
                config.sendPrefetch(), () -> endpoints.remove(self[0]));
        self[0] = e;
        endpoints.add(e);
        if (socket != null) {
            Bootstrap.watch(socket, wire);
        }
        e.start();
        return e;
    }

    FabricDomain.EndpointHandles fabricEndpoint() {
        return fabric.openEndpoint(cqSize());
    }

    void closeHandles(FabricDomain.EndpointHandles h) {
        Fid.close(h.ep());
        Fid.close(h.cq());
    }

    @Override
    public Mono<Listener> bind(String address) {
        return Mono.<Listener>fromCallable(() -> {
            checkOpen();
            FabricAddress a = FabricAddress.parse(address, fabric.provider);
            checkProvider(a);
            ServerSocket ss = new ServerSocket();
            try {
                ss.setReuseAddress(true);
                ss.bind(new InetSocketAddress(a.host(), a.port()));
            } catch (IOException e) {
                ss.close();
                throw new InvalidRequestException("cannot bind " + address + ": " + e.getMessage());
            }
            FabricListener l = new FabricListener(this, ss, new FabricAddress(a.host(), ss.getLocalPort(),
                    fabric.provider).uri());
            listeners.add(l);
            l.start();
            return l;
        }).subscribeOn(Schedulers.boundedElastic());
    }

    void forget(FabricListener l) {
        listeners.remove(l);
    }

    @Override
    public Scheduler scheduler() {
        return progress.scheduler();
    }

    @Override
    public MeterBinder metrics() {
        return metrics;
    }

    @Override
    public Mono<Void> onDispose() {
        return onDispose.asMono();
    }

    @Override
    public boolean isDisposed() {
        return disposed.get();
    }

    @Override
    public void dispose() {
        if (!disposed.compareAndSet(false, true)) {
            return;
        }
        listeners.forEach(FabricListener::dispose);
        TransportException cause = new ResourceClosedException("transport was disposed");
        endpoints.forEach(e -> e.closeFromTransport(cause));
        for (EndpointEngine e : endpoints) {
            e.onClose().block(Duration.ofSeconds(5));
        }
        progress.close();
        memory.close();
        try {
            fabric.close();
        } catch (RuntimeException e) {
            log.warn("closing fabric {} failed", fabric.provider, e);
        }
        onDispose.tryEmitEmpty();
    }
}
