package dev.rivulet.rio.shm;

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
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.loop.ErrorPathClasses;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.rio.ShmOptions;
import dev.rivulet.rio.shm.sys.ProcessControl;
import io.micrometer.core.instrument.Gauge;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Rivulet's shared-memory transport between processes of one Linux host ({@code shm://NAME}): connection set-up
 * over a Unix domain socket in an owner-only directory ({@link ShmAddress}, {@link ConnectionSetUp}), then a
 * {@link ShmWire} per connection over a shared file's rings and staging pools, under core's {@code EndpointEngine}
 * like every backend. Idle polling threads sleep on the connections' doorbells ({@link ShmLoopWaiter}).
 *
 * <p>Options: {@link ShmOptions}. TLS does not apply (nothing leaves the host, and the socket directory admits this
 * user only); a shared secret does, as on every transport.
 */
final class ShmTransport extends AbstractTransport {

    static final String NAME = "shm";

    private final ShmSettings settings;
    private final SharedRegions regions;
    private final Capabilities caps;
    private final Arena arena = Arena.ofShared();
    private final ConnectionSetUp setUp;
    private final Map<ProgressLoop, ShmLoopWaiter> waiters = new ConcurrentHashMap<>();
    private final Set<ShmWire> lingering = ConcurrentHashMap.newKeySet();
    /** The receive budget of connections this side dials (listeners have one each). */
    private final ReceiveBudget dialled;

    ShmTransport(TransportConfig config) {
        if (config.security().usesTls()) {
            throw new InvalidRequestException("shm does not use TLS (nothing leaves the host and only this user "
                    + "can reach its sockets); remove the security.tls settings for it");
        }
        config.checkOptions(NAME, ShmOptions.ALL);
        ShmSettings s = ShmSettings.from(config);
        if (s.nonDumpable()) {
            // Before any connection or region exists, so nothing of this transport is ever reachable through
            // /proc/<pid> by processes of the same user.
            ProcessControl.makeNonDumpable();
        }
        SharedRegions r = new SharedRegions(s.offersWindows());
        super(NAME, config, r, ShmOptions.ALL);
        // What failing and closing connections need here, loaded while the process can open files (ErrorPathClasses).
        ErrorPathClasses.loadNests(ShmWire.class, ShmOutbox.class, ShmInbox.class, ShmInitiator.class,
                ShmRequestServer.class, StagedTransfer.class, OwedAnswer.class, MappedWindow.class, ShmConnection.class,
                StagingPool.class);
        ErrorPathClasses.load(ShmProtocolException.class);
        this.settings = s;
        this.dialled = ReceiveBudget.dialled(config.security(), metrics.budgetCounters());
        this.regions = r;
        this.caps = new Capabilities(NAME, EnumSet.allOf(Operation.class), s.maxMessageSize(),
                s.largeMessageThreshold(), 1,
                EnumSet.of(Ordering.SEND_AFTER_SEND, Ordering.PUT_AFTER_PUT, Ordering.RMA_AFTER_SEND),
                config.sendQueueDepth(), config.receiveQueueDepth(), 10e9, Duration.ofNanos(500),
                // a send completes once its bytes are in the shared ring or pool, before the peer took them
                Completion.LOCAL, Completion.REMOTE, Completion.REMOTE, 1L << 30, true, 64, true, false);
        this.setUp = new ConnectionSetUp(config.security(), s, maxRequests(config), arena);
        ShmFiles.sweep(0);
        // A connection keeps its shared file mapped after close until the peer closed its end (at most the peer
        // timeout): a count that stays high means peers that do not close, each holding its rings and pool.
        addMeters((registry, tags) -> List.of(Gauge.builder("rivulet.shm.connections.lingering", lingering, Set::size)
                .tags(tags).description("Closed shm:// connections still mapped, waiting for the peer to close")
                .register(registry)));
    }

    /** The requests this side may have in flight: the engine's operations and its own map requests. */
    private static int maxRequests(TransportConfig config) {
        return config.sendQueueDepth() + ShmWire.MAX_MAP_REQUESTS;
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    SecuritySettings security() {
        return config.security();
    }

    @Override
    public Mono<Endpoint> connect(String address) {
        return blockingSetUp(() -> {
            String name = ShmAddress.nameOf(address);
            Path socket = ShmAddress.socketPath(ShmAddress.directory(settings.directory()), name);
            long deadline = System.nanoTime() + config.connectTimeout().toNanos();
            SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                try {
                    ch.connect(UnixDomainSocketAddress.of(socket));
                } catch (IOException e) {
                    throw new ConnectionRefusedException("nobody listens at " + address + " (" + socket + ": "
                            + e.getMessage() + ")", e);
                }
                ShmConnection c = setUp.dial(ch, deadline);
                try {
                    return (Endpoint) attach(c, address, dialled, true);
                } catch (RuntimeException | Error e) {
                    c.close();
                    throw e;
                }
            } catch (RuntimeException | Error e) {
                ch.close();
                ShmFiles.sweep(0);
                throw e;
            }
        });
    }

    @Override
    public Mono<Listener> bind(String address) {
        return Mono.fromCallable(() -> {
            checkOpen();
            String name = ShmAddress.nameOf(address);
            Path socket = ShmAddress.socketPath(ShmAddress.directory(settings.directory()), name);
            ServerSocketChannel server;
            synchronized (ShmTransport.class) {
                clearStale(socket, address);
                server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
                try {
                    server.bind(UnixDomainSocketAddress.of(socket), 256);
                } catch (IOException e) {
                    server.close();
                    throw new InvalidRequestException("cannot bind " + address + " at " + socket + ": " + e, e);
                }
            }
            ShmListener l = new ShmListener(this, ShmAddress.format(name), socket, server);
            track(l);
            l.start();
            return (Listener) l;
        });
    }

    /** A socket file left by a listener whose process ended goes; a live listener's is a conflict. */
    private static void clearStale(Path socket, String address) throws IOException {
        if (!Files.exists(socket, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(UnixDomainSocketAddress.of(socket));
        } catch (IOException nobodyListens) {
            Files.deleteIfExists(socket);
            return;
        }
        throw new InvalidRequestException(address + " is already bound");
    }

    /** Runs the accepting side's set-up of an admitted socket (on a set-up thread). */
    ShmConnection acceptConnection(SocketChannel socket) {
        return setUp.accept(socket, System.nanoTime() + config.security().handshakeTimeout().toNanos());
    }

    /**
     * The endpoint of a connection that passed set-up, on the next polling thread; both sides send no more than the
     * smaller of their message limits.
     */
    EndpointEngine attach(ShmConnection c, String remote, ReceiveBudget budget, boolean authenticated) {
        try {
            checkOpen();
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
        ProgressLoop loop = progress.nextLoop();
        ShmLoopWaiter waiter = waiters.computeIfAbsent(loop, l -> {
            ShmLoopWaiter w = new ShmLoopWaiter(l, settings.spinBeforeSleep());
            l.waiter(w);
            return w;
        });
        Capabilities narrowed = new Capabilities(caps.transport(), caps.operations(),
                Math.min(caps.maxMessageSize(), c.peerMaxMessage), caps.maxInlineSize(), caps.maxIov(),
                caps.ordering(), caps.sendQueueDepth(), caps.receiveQueueDepth(), caps.bandwidth(), caps.latency(),
                caps.sendCompletion(), caps.putCompletion(), caps.flushCompletion(), caps.maxRmaSize(),
                caps.remoteAccessChecked(), caps.remoteKeyBits(), caps.grantScopeChecked(),
                caps.refusalClosesConnection());
        ShmWire wire = new ShmWire(this, c, memory, narrowed, remote, loop, waiter, regions, config.liveness(),
                settings, budget.connection(authenticated, narrowed.maxMessageSize(),
                        config.liveness().heartbeatInterval().toNanos(), System.nanoTime()));
        loop.execute(wire::attach); // runs before the endpoint's registration: the loop runs tasks in order
        return newEndpoint(wire, loop);
    }

    /** A new listener's receive budget: what its connections together may make it commit ahead of their bytes. */
    ReceiveBudget listenerBudget() {
        return ReceiveBudget.forListener(config.security(), metrics.budgetCounters());
    }

    /** The registrar and its shared allocations (for tests). */
    SharedRegions regions() {
        return regions;
    }

    void lingering(ShmWire w) {
        lingering.add(w);
    }

    void released(ShmWire w) {
        lingering.remove(w);
    }

    @Override
    protected void closeResources() {
        // The polling threads have stopped: whatever still lingers is released here, then the loops' sleep.
        for (ShmWire w : List.copyOf(lingering)) {
            try {
                w.release();
            } catch (RuntimeException e) {
                throw new ProviderException("releasing a closed connection failed: " + e, e);
            }
        }
        waiters.values().forEach(ShmLoopWaiter::close);
        waiters.clear();
        regions.close();
        arena.close();
    }
}
