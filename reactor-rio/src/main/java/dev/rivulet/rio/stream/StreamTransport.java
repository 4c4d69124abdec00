package dev.rivulet.rio.stream;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.TransportOption;
import dev.rivulet.core.admission.ReceiveBudget;
import dev.rivulet.core.engine.AbstractTransport;
import dev.rivulet.core.engine.EndpointEngine;
import dev.rivulet.core.error.AuthenticationException;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.HandshakeException;
import dev.rivulet.core.loop.ErrorPathClasses;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.handshake.Handshake;
import dev.rivulet.core.handshake.HandshakeIo;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.core.handshake.TlsEngineIo;
import dev.rivulet.rio.StreamOptions;
import reactor.core.publisher.Mono;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;

/**
 * What the registered-buffer socket transports share: options and capabilities, {@code scheme://host:port}
 * addresses, and the connect / bind / handshake / attach flow. A system layer (io_uring, RIO) supplies only its
 * socket calls and the {@link StreamChannel} of a connected socket; the transport logic above it is
 * {@link StreamWire}.
 *
 * <h2>Connection set-up</h2>
 * Every connection, dialled or accepted, is set up on the plain socket with blocking calls before anything of the
 * wire exists, all within {@code security.handshakeTimeout} (connect included on io_uring):
 * <ol>
 *   <li>socket options: TCP_NODELAY, keepalive and a user timeout derived from the liveness settings
 *       ({@link SocketTuning});</li>
 *   <li>with a TLS context configured ({@code security.tls.*}), the TLS 1.3 handshake ({@link TlsEngineIo}: the
 *       server's certificate checked against the trust store, the client's too when {@code security.tls.clientAuth};
 *       the host name when {@code security.tls.verifyHostname});</li>
 *   <li>core's {@link Handshake} ({@link Handshake#KIND_STREAM}), through TLS when it is on: versions, the shared
 *       secret's mutual proof when one is configured ({@code security.secret}), then each side's
 *       {@link StreamLimits}.</li>
 * </ol>
 * A socket only becomes an endpoint (buffers, ring slots, a progress loop) once it passed; with TLS its channel is
 * wrapped in a {@link TlsChannel} that carries on with the same {@code SSLEngine}. Listeners admit at most
 * {@code security.maxConnections} connections, of which at most {@code security.maxHandshakes} in set-up (see
 * {@link AcceptingListener}). Failures are typed: {@link AuthenticationException} (wrong or missing secret, a
 * certificate refused), {@link HandshakeException} (not a Rivulet stream peer, incompatible versions or parameters),
 * {@link ConnectionRefusedException} (refused, timed out, the peer left during set-up).
 *
 * <p>Sockets are named by a {@code long} handle (a Linux fd, a Windows SOCKET).
 */
public abstract class StreamTransport extends AbstractTransport {

    private static final byte[] NO_SERVICE = new byte[0];

    private final String scheme;
    protected final StreamTransportSettings settings;
    protected final Capabilities caps;
    protected final SecuritySettings security;
    protected final SocketTuning tuning;
    /** The receive budget of connections this side dials (listeners have one each). */
    private final ReceiveBudget dialled;

    /**
     * @param streamOptions the stream options under this transport's prefix
     * @param allOptions    every option the transport reads (the stream options among them)
     */
    protected StreamTransport(String name, String scheme, TransportConfig config, StreamOptions streamOptions,
                              List<TransportOption<?>> allOptions, double bandwidth, Duration latency) {
        super(name, config, StreamTransportSettings::softwareRegistration, allOptions);
        // What failing and closing connections of every system layer need, loaded now (see ErrorPathClasses).
        ErrorPathClasses.loadNests(StreamWire.class, StreamWriter.class, StreamReader.class, StreamRequests.class,
                StreamResponder.class, FrameParser.class, TlsChannel.class);
        ErrorPathClasses.load(RmaRequest.class, FrameHeader.class, FrameKind.class, StreamLimits.class);
        this.scheme = scheme;
        this.settings = StreamTransportSettings.from(config, streamOptions);
        this.caps = settings.capabilities(name, config, bandwidth, latency);
        this.security = config.security();
        this.tuning = SocketTuning.from(config.liveness());
        this.dialled = ReceiveBudget.dialled(security, metrics.budgetCounters());
    }

    /**
     * What a connection's own buffers take (the staging and receive buffers, and TLS's as many again): held from a
     * listener's budget while it lasts where peers cannot authenticate.
     */
    long connectionCost() {
        long c = (long) settings.stagingBytes() + settings.receiveBytes();
        return security.usesTls() ? 2 * c : c;
    }

    /** A new listener's receive budget: what its connections together may make it commit ahead of their bytes. */
    ReceiveBudget listenerBudget() {
        return ReceiveBudget.forListener(security, metrics.budgetCounters());
    }

    /**
     * A blocking socket connected to {@code target}, giving up at {@code deadlineNanos} ({@link System#nanoTime()}
     * clock) where the system can; failures as {@code TransportException}s.
     */
    protected abstract long connectSocket(String address, InetSocketAddress target, long deadlineNanos);

    /**
     * Sets TCP_NODELAY, keepalive ({@code SO_KEEPALIVE}, idle, interval, count) and the user timeout on a connected
     * socket; failures as {@code TransportException}s.
     */
    protected abstract void configureSocket(long socket, SocketTuning tuning);

    /** The handshake's byte channel over a connected socket: blocking calls that give up at the deadline. */
    protected abstract HandshakeIo handshakeIo(long socket, long deadlineNanos);

    /** A listener bound to {@code at}, not started; failures as {@code TransportException}s. */
    protected abstract AcceptingListener listen(String address, InetSocketAddress at);

    /** The channel of a connected socket, served by {@code loop}'s completion queue. */
    protected abstract StreamChannel newChannel(ProgressLoop loop, long socket, String remote);

    /** Closes a socket that never became an endpoint. */
    protected abstract void closeSocket(long socket);

    /** Ends whatever blocking call another thread is making on a socket in set-up (shutdown of both directions). */
    protected abstract void shutdownSocket(long socket);

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    /** Who may connect and how set-up is bounded. */
    public SecuritySettings security() {
        return security;
    }

    protected final String addressOf(InetSocketAddress address) {
        return StreamAddress.format(scheme, address);
    }

    @Override
    public Mono<Endpoint> connect(String address) {
        return blockingSetUp(() -> {
            InetSocketAddress target = StreamAddress.parse(scheme, address);
            long deadline = System.nanoTime() + config.connectTimeout().toNanos();
            long socket = connectSocket(address, target, deadline);
            try {
                configureSocket(socket, tuning);
                HandshakeIo io = handshakeIo(socket, deadline);
                TlsEngineIo tls = null;
                if (security.usesTls()) {
                    tls = tls(() -> TlsEngineIo.client(io, security, target.getHostString(), target.getPort()));
                }
                byte[] accepted = Handshake.client(tls != null ? tls : io, security, Handshake.KIND_STREAM,
                        NO_SERVICE, settings.limits().encode());
                StreamLimits peer = StreamLimits.decode(accepted);
                return (Endpoint) attach(socket, addressOf(target), peer, engineOf(tls), dialled, true);
            } catch (RuntimeException | Error e) {
                closeSocket(socket);
                throw e;
            }
        });
    }

    @Override
    public Mono<Listener> bind(String address) {
        return Mono.fromCallable(() -> {
            checkOpen();
            AcceptingListener l = listen(address, StreamAddress.parse(scheme, address));
            track(l);
            l.start();
            return (Listener) l;
        });
    }

    /** What an accepted socket's set-up agreed on. */
    record Accepted(StreamLimits peer, SSLEngine tls) {
    }

    /**
     * The accepting side's set-up of one socket, on a handshake thread: socket options, TLS when configured, then
     * the handshake, which answers the client's limits with this side's. Throws {@code TransportException}s.
     */
    Accepted acceptHandshake(long socket) {
        long deadline = System.nanoTime() + security.handshakeTimeout().toNanos();
        configureSocket(socket, tuning);
        HandshakeIo io = handshakeIo(socket, deadline);
        TlsEngineIo tls = security.usesTls() ? tls(() -> TlsEngineIo.server(io, security)) : null;
        byte[] params = Handshake.server(tls != null ? tls : io, security, Handshake.KIND_STREAM, clientParams -> {
            StreamLimits.decode(clientParams); // refused as INCOMPATIBLE when malformed
            return settings.limits().encode();
        });
        return new Accepted(StreamLimits.decode(params), engineOf(tls));
    }

    /** The engine of a finished TLS set-up; a peer that sent data before the handshake ended broke the protocol. */
    private static SSLEngine engineOf(TlsEngineIo tls) {
        if (tls == null) {
            return null;
        }
        if (tls.hasUnreadData()) {
            throw new HandshakeException("peer sent data before the connection handshake ended");
        }
        return tls.engine();
    }

    private interface TlsStart {
        TlsEngineIo run() throws IOException;
    }

    /** Runs the TLS handshake, its failures typed as the connection handshake's are. */
    private TlsEngineIo tls(TlsStart start) {
        try {
            return start.run();
        } catch (SSLException e) {
            throw new AuthenticationException("TLS handshake failed: " + e.getMessage(), e);
        } catch (SocketTimeoutException e) {
            throw new ConnectionRefusedException("TLS handshake did not finish within "
                    + security.handshakeTimeout(), e);
        } catch (EOFException e) {
            throw new ConnectionRefusedException("peer closed the connection during the TLS handshake", e);
        } catch (IOException e) {
            throw new ConnectionRefusedException("TLS handshake failed: " + e.getMessage(), e);
        }
    }

    /**
     * Makes the endpoint of a connected socket that passed set-up, on the next progress loop and that loop's
     * completion queue, with TLS on the data path when {@code tls} is the set-up's engine. Both sides send and accept
     * no more than the smaller of their limits. The peer's receive memory comes out of {@code budget} (the
     * listener's, or the one of dialled connections), in full for an {@code authenticated} peer.
     */
    EndpointEngine attach(long socket, String remote, StreamLimits peer, SSLEngine tls, ReceiveBudget budget,
                          boolean authenticated) {
        checkOpen();
        ProgressLoop loop = progress.nextLoop();
        StreamChannel channel = newChannel(loop, socket, remote);
        if (tls != null) {
            channel = new TlsChannel(channel, tls, loop);
        }
        StreamChannel attached = channel;
        Capabilities agreed = peer.narrow(caps);
        ReceiveBudget.Connection share = budget.connection(authenticated, agreed.maxMessageSize(),
                config.liveness().heartbeatInterval().toNanos(), System.nanoTime());
        StreamWire wire = new StreamWire(attached, memory, agreed, remote, settings.copyLimit(),
                Math.min(settings.maxBatchBytes(), peer.maxBatchBytes()), loop, config.liveness(), share);
        // Runs before the endpoint's registration and first operation: the loop runs tasks in order.
        loop.execute(() -> attached.attach(wire));
        return newEndpoint(wire, loop);
    }
}
