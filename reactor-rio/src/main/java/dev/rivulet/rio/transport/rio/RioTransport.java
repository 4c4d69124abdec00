package dev.rivulet.rio.transport.rio;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.engine.AbstractTransport;
import dev.rivulet.core.engine.EndpointEngine;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.progress.ProgressLoop;
import dev.rivulet.rio.stream.PerLoop;
import dev.rivulet.rio.stream.StreamAddress;
import dev.rivulet.rio.stream.StreamTransportSettings;
import dev.rivulet.rio.stream.StreamWire;
import dev.rivulet.rio.windows.RioFunctions;
import dev.rivulet.rio.windows.WinErrorException;
import dev.rivulet.rio.windows.WinsockConstants;
import dev.rivulet.rio.windows.Ws2_32;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.lang.foreign.Arena;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * TCP through Windows Registered I/O ({@code rio://host:port}): one RIO completion queue per progress loop, a
 * request queue and two registered buffers (staging, receive) per connection, under the same {@link StreamWire} as
 * io_uring, so framing, credits, software RMA and flush are shared and only the system layer differs.
 *
 * <p>Connections are set up with blocking Winsock calls off the progress loop ({@code connect} on a bounded-elastic
 * thread, {@code accept} on the listener's thread) on sockets created with {@code WSA_FLAG_REGISTERED_IO}; accepted
 * sockets inherit the flag. Options: those of {@link StreamTransportSettings} under {@code rio.}, plus
 * {@code rio.completionQueueSize} (entries per loop's completion queue, 1024: every connection keeps one send and one
 * receive outstanding, so a loop serves up to half that many; beyond it {@code RIOCreateRequestQueue} answers
 * {@code WSAENOBUFS}, reported as a {@link TransportException}).
 *
 * <p>Written against the documented API and compiled, never run: this machine is Linux (see docs/rio.md).
 */
public final class RioTransport extends AbstractTransport {

    public static final String SCHEME = "rio";

    private final Ws2_32 ws;
    private final RioFunctions rio;
    private final Capabilities caps;
    private final StreamTransportSettings settings;
    private final int completionQueueSize;
    private final PerLoop<RioLoop> loops = new PerLoop<>("RIO completion queue", this::startLoop);

    RioTransport(TransportConfig config) {
        super(RioTransportProvider.NAME, config, StreamTransportSettings::softwareRegistration);
        this.settings = StreamTransportSettings.from(config, "rio.");
        this.completionQueueSize = config.intOption("rio.completionQueueSize", 1024);
        this.caps = settings.capabilities(RioTransportProvider.NAME, config, 5e9, Duration.ofNanos(15_000));
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

    static InetSocketAddress parse(String address) {
        return StreamAddress.parse(SCHEME, address);
    }

    static String format(InetSocketAddress address) {
        return StreamAddress.format(SCHEME, address);
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    @Override
    public Mono<Endpoint> connect(String address) {
        return Mono.fromCallable(() -> {
            checkOpen();
            InetSocketAddress target = parse(address);
            long socket = newSocket(target);
            try (Arena scratch = Arena.ofConfined()) {
                ws.connect(socket, Ws2_32.sockaddr(scratch, target));
                ws.setsockopt(socket, WinsockConstants.IPPROTO_TCP, WinsockConstants.TCP_NODELAY, 1);
            } catch (WinErrorException e) {
                closeQuietly(socket);
                if (e.code() == WinsockConstants.WSAECONNREFUSED) {
                    throw new ConnectionRefusedException("nobody listens at " + address + ": " + e.getMessage(),
                            RioTransportProvider.NAME, e.code(), WinErrorException.name(e.code()), e);
                }
                throw failure("connect to " + address, e);
            }
            try {
                return (Endpoint) attach(socket, format(target));
            } catch (RuntimeException e) {
                closeQuietly(socket);
                throw e;
            }
        }).subscribeOn(Schedulers.boundedElastic());
    }

    @Override
    public Mono<Listener> bind(String address) {
        return Mono.fromCallable(() -> {
            checkOpen();
            InetSocketAddress at = parse(address);
            long socket = newSocket(at);
            try (Arena scratch = Arena.ofConfined()) {
                ws.bind(socket, Ws2_32.sockaddr(scratch, at));
                ws.listen(socket, 512);
                RioListener l = new RioListener(this, ws, socket, format(ws.localAddress(socket)));
                track(l);
                l.start();
                return (Listener) l;
            } catch (WinErrorException e) {
                closeQuietly(socket);
                throw failure("bind to " + address, e);
            }
        });
    }

    private long newSocket(InetSocketAddress a) {
        int family = a.getAddress() instanceof Inet6Address ? WinsockConstants.AF_INET6 : WinsockConstants.AF_INET;
        try {
            return ws.registeredIoSocket(family, WinsockConstants.SOCK_STREAM, WinsockConstants.IPPROTO_TCP);
        } catch (WinErrorException e) {
            throw failure("WSASocketW", e);
        }
    }

    /** Makes the endpoint of a connected registered-I/O socket, on the next progress loop and its completion queue. */
    EndpointEngine attach(long socket, String remote) {
        checkOpen();
        ProgressLoop loop = progress.nextLoop();
        RioLoop rioLoop = loops.of(loop);
        RioChannel channel;
        try {
            channel = new RioChannel(rioLoop, socket, settings.stagingBytes(), settings.receiveBytes());
        } catch (WinErrorException e) {
            throw failure("registering the buffers of " + remote, e);
        }
        StreamWire wire = new StreamWire(channel, memory, caps, remote, settings.copyLimit(),
                settings.maxBatchBytes());
        // Runs before the endpoint's registration and first operation: the loop runs tasks in order.
        loop.execute(() -> channel.attach(wire));
        return newEndpoint(wire, loop);
    }

    private RioLoop startLoop(ProgressLoop loop) {
        RioLoop created = new RioLoop(ws, rio, completionQueueSize);
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

    private void closeQuietly(long socket) {
        try {
            ws.closeSocket(socket);
        } catch (WinErrorException e) {
            // gone either way
        }
    }
}
