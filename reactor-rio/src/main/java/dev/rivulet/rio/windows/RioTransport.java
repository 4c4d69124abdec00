package dev.rivulet.rio.windows;

import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.loop.ErrorPathClasses;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.handshake.HandshakeIo;
import dev.rivulet.rio.RioOptions;
import dev.rivulet.rio.stream.AcceptingListener;
import dev.rivulet.rio.stream.PerLoop;
import dev.rivulet.rio.stream.SocketTuning;
import dev.rivulet.rio.stream.StreamChannel;
import dev.rivulet.rio.stream.StreamTransport;
import dev.rivulet.rio.stream.StreamWire;
import dev.rivulet.rio.windows.sys.RioFunctions;
import dev.rivulet.rio.windows.sys.WinErrorException;
import dev.rivulet.rio.windows.sys.WinsockConstants;
import dev.rivulet.rio.windows.sys.Ws2_32;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.Arena;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * TCP through Windows Registered I/O ({@code rio://host:port}): one RIO completion queue per progress loop, a
 * request queue and two registered buffers (staging, receive) per connection, under the same {@link StreamWire} as
 * io_uring, so framing, credits, software RMA and flush are shared and only the system layer differs.
 *
 * <p>Connections are set up with blocking Winsock calls off the progress loop ({@code connect} and the handshake on a
 * bounded-elastic thread, {@code accept} on the listener's thread, accepted sockets' handshakes on its handshake
 * threads; see {@link StreamTransport}) on sockets created with {@code WSA_FLAG_REGISTERED_IO}; accepted sockets
 * inherit the flag. Options: {@link RioOptions} (beyond {@code rio.completionQueueSize} completion queue entries per
 * loop, {@code RIOCreateRequestQueue} answers {@code WSAENOBUFS}, reported as a {@link TransportException}).
 *
 * <p>Written against the documented API and compiled, not yet run on Windows (see docs/rio.md).
 */
public final class RioTransport extends StreamTransport {

    public static final String SCHEME = "rio";
    private static final Logger log = LoggerFactory.getLogger(RioTransport.class);

    private final Ws2_32 ws;
    private final RioFunctions rio;
    private final int completionQueueSize;
    private final PerLoop<RioLoop> loops = new PerLoop<>("RIO completion queue", this::startLoop);

    RioTransport(TransportConfig config) {
        super(RioTransportProvider.NAME, SCHEME, config, RioOptions.STREAM, RioOptions.ALL, 5e9,
                Duration.ofNanos(15_000));
        this.completionQueueSize = config.get(RioOptions.COMPLETION_QUEUE_SIZE);
        // What a failing or closing connection needs here, loaded while the process can still open files (see
        // ErrorPathClasses; not yet run on Windows).
        ErrorPathClasses.load(WinErrorException.class);
        ErrorPathClasses.loadNests(RioChannel.class, RioLoop.class);
        Ws2_32 opened = null;
        try {
            opened = Ws2_32.open();
            // The function table is the same for every registered-I/O socket: fetch it once through a scratch one.
            long probe = opened.registeredIoSocket(WinsockConstants.AF_INET, WinsockConstants.SOCK_STREAM,
                    WinsockConstants.IPPROTO_TCP);
            try {
                this.rio = opened.rio(probe);
            } finally {
                opened.closeSocket(probe);
            }
        } catch (RuntimeException e) {
            if (opened != null) {
                opened.close();
            }
            dispose(); // the progress threads the base class started
            throw e instanceof WinErrorException w ? failure("opening Registered I/O", w) : e;
        }
        this.ws = opened;
    }

    /**
     * A blocking {@code connect} (bounded by the system's own SYN retries, not by the deadline: only the handshake
     * after it is), then the handshake.
     */
    @Override
    protected long connectSocket(String address, InetSocketAddress target, long deadlineNanos) {
        long socket = newSocket(target);
        try (Arena scratch = Arena.ofConfined()) {
            ws.connect(socket, Ws2_32.sockaddr(scratch, target));
            return socket;
        } catch (WinErrorException e) {
            closeSocket(socket);
            if (e.code() == WinsockConstants.WSAECONNREFUSED) {
                throw new ConnectionRefusedException("nobody listens at " + address + ": " + e.getMessage(),
                        RioTransportProvider.NAME, e.code(), WinErrorException.name(e.code()), e);
            }
            throw failure("connect to " + address, e);
        }
    }

    /**
     * TCP_NODELAY and keepalive are required; the keepalive timing and {@code TCP_MAXRT} (the user timeout, in
     * whole seconds) exist from Windows 10 1709 and are set where the system has them.
     */
    @Override
    protected void configureSocket(long socket, SocketTuning tuning) {
        try {
            ws.setsockopt(socket, WinsockConstants.IPPROTO_TCP, WinsockConstants.TCP_NODELAY, 1);
            ws.setsockopt(socket, WinsockConstants.SOL_SOCKET, WinsockConstants.SO_KEEPALIVE, 1);
        } catch (WinErrorException e) {
            throw failure("setting up the socket", e);
        }
        int maxRetransmitSeconds = Math.max(1, (tuning.userTimeoutMillis() + 999) / 1000);
        int[][] optional = {
                {WinsockConstants.TCP_KEEPIDLE, tuning.keepIdleSeconds()},
                {WinsockConstants.TCP_KEEPINTVL, tuning.keepIntervalSeconds()},
                {WinsockConstants.TCP_KEEPCNT, tuning.keepCount()},
                {WinsockConstants.TCP_MAXRT, maxRetransmitSeconds}};
        for (int[] o : optional) {
            try {
                ws.setsockopt(socket, WinsockConstants.IPPROTO_TCP, o[0], o[1]);
            } catch (WinErrorException e) {
                log.debug("TCP option {} not set: {}", o[0], e.getMessage());
            }
        }
    }

    @Override
    protected HandshakeIo handshakeIo(long socket, long deadlineNanos) {
        return new WinsockHandshakeIo(ws, socket, deadlineNanos);
    }

    @Override
    protected void shutdownSocket(long socket) {
        try {
            ws.shutdown(socket, WinsockConstants.SD_BOTH);
        } catch (WinErrorException e) {
            // not connected any more: nothing to end
        }
    }

    @Override
    protected AcceptingListener listen(String address, InetSocketAddress at) {
        long socket = newSocket(at);
        try (Arena scratch = Arena.ofConfined()) {
            ws.bind(socket, Ws2_32.sockaddr(scratch, at));
            ws.listen(socket, 512);
            return new RioListener(this, ws, socket, addressOf(ws.localAddress(socket)));
        } catch (WinErrorException e) {
            closeSocket(socket);
            throw failure("bind to " + address, e);
        }
    }

    private long newSocket(InetSocketAddress a) {
        int family = a.getAddress() instanceof Inet6Address ? WinsockConstants.AF_INET6 : WinsockConstants.AF_INET;
        try {
            return ws.registeredIoSocket(family, WinsockConstants.SOCK_STREAM, WinsockConstants.IPPROTO_TCP);
        } catch (WinErrorException e) {
            throw failure("WSASocketW", e);
        }
    }

    @Override
    protected StreamChannel newChannel(ProgressLoop loop, long socket, String remote) {
        try {
            return new RioChannel(loops.of(loop), socket, settings.stagingBytes(), settings.receiveBytes());
        } catch (WinErrorException e) {
            throw failure("registering the buffers of " + remote, e);
        }
    }

    private RioLoop startLoop(ProgressLoop loop) {
        RioLoop created = new RioLoop(ws, rio, completionQueueSize, loop.name());
        loop.register(created);
        loop.waiter(created);
        return created;
    }

    @Override
    protected void closeResources() {
        loops.drain().forEach(RioLoop::close);
        if (ws != null) {
            ws.close();
        }
    }

    static TransportException failure(String what, WinErrorException e) {
        String text = WinErrorException.name(e.code());
        return new TransportException(what + " failed: " + e.getMessage(), RioTransportProvider.NAME, e.code(), text,
                e);
    }

    @Override
    protected void closeSocket(long socket) {
        try {
            ws.closeSocket(socket);
        } catch (WinErrorException e) {
            // gone either way
        }
    }
}
