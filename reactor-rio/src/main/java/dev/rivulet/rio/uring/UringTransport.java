package dev.rivulet.rio.uring;

import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.ConnectionLostException;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.handshake.HandshakeIo;
import dev.rivulet.core.loop.ErrorPathClasses;
import dev.rivulet.core.loop.ProgressLoop;
import dev.rivulet.core.sys.Descriptors;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.core.sys.ErrnoException;
import dev.rivulet.core.sys.LibcSockets;
import dev.rivulet.core.sys.Linger;
import dev.rivulet.core.sys.Pollfd;
import dev.rivulet.rio.UringOptions;
import dev.rivulet.rio.stream.AcceptingListener;
import dev.rivulet.rio.stream.PerLoop;
import dev.rivulet.rio.stream.PollDeadline;
import dev.rivulet.rio.stream.SocketTuning;
import dev.rivulet.rio.stream.StreamChannel;
import dev.rivulet.rio.stream.StreamTransport;
import dev.rivulet.rio.stream.StreamTransportSettings;
import dev.rivulet.rio.stream.StreamWire;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * TCP through io_uring ({@code uring://host:port}): one ring per progress loop, registered staging and receive
 * buffers per connection, and the stream transport logic of {@link StreamWire} (framing, credits, software RMA
 * executed by the target's progress thread, flush).
 *
 * <p>Connections are set up as {@link StreamTransport} describes (handshake on the plain socket with blocking calls
 * bounded by {@code poll(2)}, then the socket joins a ring); accept errors such as {@code EMFILE} back off and retry.
 *
 * <p>Options: {@link UringOptions}.
 */
public final class UringTransport extends StreamTransport {

    public static final String NAME = "io_uring";
    public static final String SCHEME = "uring";

    private final int ringEntries;
    private final int fixedSlots;
    private final boolean zeroCopy;
    private final int zeroCopyMinBytes;
    private final boolean zeroCopyLoopback;
    private final boolean deferTaskrun;
    private final PerLoop<UringLoop> rings = new PerLoop<>("io_uring", this::startRing);

    UringTransport(TransportConfig config) {
        super(NAME, SCHEME, config, UringOptions.STREAM, UringOptions.ALL, 5e9, Duration.ofNanos(15_000));
        // What a failing or closing connection needs here (the reset's SO_LINGER, errno texts), loaded while the
        // process can still open files (see ErrorPathClasses).
        ErrorPathClasses.load(Linger.class, ErrnoException.class, Errno.class);
        ErrorPathClasses.loadNests(UringChannel.class, UringLoop.class);
        this.ringEntries = config.get(UringOptions.RING_ENTRIES);
        this.fixedSlots = config.get(UringOptions.FIXED_SLOTS);
        this.zeroCopy = config.get(UringOptions.ZERO_COPY);
        this.zeroCopyMinBytes = config.get(UringOptions.ZERO_COPY_MIN_BYTES);
        this.zeroCopyLoopback = config.get(UringOptions.ZERO_COPY_LOOPBACK);
        this.deferTaskrun = config.get(UringOptions.DEFER_TASKRUN);
    }

    /**
     * A non-blocking connect waited for with {@code poll(2)} until the deadline, so an address that never answers
     * (a black-holed host) costs the handshake timeout, not the kernel's two minutes of SYN retries; the socket is
     * made blocking again for the handshake and the ring.
     */
    @Override
    protected long connectSocket(String address, InetSocketAddress target, long deadlineNanos) {
        int fd = LibcSockets.socket(LibcSockets.family(target),
                LibcSockets.SOCK_STREAM | LibcSockets.SOCK_CLOEXEC | LibcSockets.SOCK_NONBLOCK, 0);
        try {
            try {
                LibcSockets.connect(fd, target);
            } catch (ErrnoException e) {
                if (e.errno() != Errno.EINPROGRESS) {
                    throw e;
                }
                awaitConnected(fd, address, deadlineNanos);
            }
            Descriptors.setNonBlocking(fd, false);
            return fd;
        } catch (ErrnoException e) {
            closeSocket(fd);
            String text = text(e);
            if (e.errno() == Errno.ECONNREFUSED) {
                throw new ConnectionRefusedException("nobody listens at " + address + ": " + text, NAME, e.errno(),
                        text, e);
            }
            throw new TransportException("connect to " + address + " failed: " + text, NAME, e.errno(), text, e);
        } catch (RuntimeException e) {
            closeSocket(fd);
            throw e;
        }
    }

    private static void awaitConnected(int fd, String address, long deadlineNanos) {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment pollfd = scratch.allocate(Pollfd.LAYOUT);
            if (!PollDeadline.await(deadlineNanos,
                    millis -> Descriptors.poll(pollfd, fd, Descriptors.POLLOUT, millis))) {
                throw new ConnectionRefusedException("connect to " + address + " did not finish within the "
                        + "handshake timeout", NAME, Errno.ETIMEDOUT, "ETIMEDOUT", null);
            }
        }
        int error = LibcSockets.getsockopt(fd, LibcSockets.SOL_SOCKET, LibcSockets.SO_ERROR);
        if (error != 0) {
            throw new ErrnoException("connect", error);
        }
    }

    @Override
    protected void configureSocket(long socket, SocketTuning tuning) {
        int fd = (int) socket;
        try {
            LibcSockets.setsockopt(fd, LibcSockets.IPPROTO_TCP, LibcSockets.TCP_NODELAY, 1);
            LibcSockets.setsockopt(fd, LibcSockets.SOL_SOCKET, LibcSockets.SO_KEEPALIVE, 1);
            LibcSockets.setsockopt(fd, LibcSockets.IPPROTO_TCP, LibcSockets.TCP_KEEPIDLE, tuning.keepIdleSeconds());
            LibcSockets.setsockopt(fd, LibcSockets.IPPROTO_TCP, LibcSockets.TCP_KEEPINTVL,
                    tuning.keepIntervalSeconds());
            LibcSockets.setsockopt(fd, LibcSockets.IPPROTO_TCP, LibcSockets.TCP_KEEPCNT, tuning.keepCount());
            LibcSockets.setsockopt(fd, LibcSockets.IPPROTO_TCP, LibcSockets.TCP_USER_TIMEOUT,
                    tuning.userTimeoutMillis());
        } catch (ErrnoException e) {
            String text = text(e);
            throw new ConnectionLostException("setting up the socket failed: " + text, NAME, e.errno(), text, e);
        }
    }

    @Override
    protected HandshakeIo handshakeIo(long socket, long deadlineNanos) {
        return new FdHandshakeIo((int) socket, deadlineNanos);
    }

    @Override
    protected AcceptingListener listen(String address, InetSocketAddress at) {
        int fd = LibcSockets.socket(LibcSockets.family(at), LibcSockets.SOCK_STREAM | LibcSockets.SOCK_CLOEXEC, 0);
        try {
            LibcSockets.setsockopt(fd, LibcSockets.SOL_SOCKET, LibcSockets.SO_REUSEADDR, 1);
            LibcSockets.bind(fd, at);
            LibcSockets.listen(fd, 512);
            return new UringListener(this, fd, addressOf(LibcSockets.localAddress(fd)));
        } catch (ErrnoException e) {
            closeSocket(fd);
            String text = text(e);
            throw new TransportException("bind to " + address + " failed: " + text, NAME, e.errno(), text, e);
        }
    }

    @Override
    protected StreamChannel newChannel(ProgressLoop loop, long socket, String remote) {
        int fd = (int) socket;
        return new UringChannel(rings.of(loop), fd, settings.stagingBytes(), settings.receiveBytes(),
                zeroCopyLoopback || !peerOnThisHost(fd));
    }

    /**
     * Whether the peer is on this host: a loopback address, or this socket's own address (a connection to one of
     * the host's own addresses goes over the loopback device too). There the kernel copies a zero-copy send's pages
     * (see {@link UringOptions#ZERO_COPY_LOOPBACK}). A socket whose addresses cannot be read any more (the peer
     * reset it already) counts as remote: the connection fails on its first operation either way.
     */
    static boolean peerOnThisHost(int fd) {
        try {
            InetAddress peer = LibcSockets.remoteAddress(fd).getAddress();
            return peer.isLoopbackAddress() || peer.equals(LibcSockets.localAddress(fd).getAddress());
        } catch (ErrnoException e) {
            return false;
        }
    }

    private UringLoop startRing(ProgressLoop loop) {
        UringLoop r = new UringLoop(loop, ringEntries, fixedSlots, zeroCopy, zeroCopyMinBytes, deferTaskrun);
        loop.register(r);
        loop.waiter(r);
        return r;
    }

    @Override
    protected void closeResources() {
        rings.drain().forEach(UringLoop::close);
    }

    @Override
    protected void closeSocket(long socket) {
        try {
            Descriptors.closeOrThrow((int) socket);
        } catch (ErrnoException e) {
            // gone either way
        }
    }

    @Override
    protected void shutdownSocket(long socket) {
        try {
            LibcSockets.shutdown((int) socket, LibcSockets.SHUT_RDWR);
        } catch (ErrnoException e) {
            // not connected any more: nothing to end
        }
    }

    private static String text(ErrnoException e) {
        return Errno.name(e.errno()) + " (" + Errno.describe(e.errno()) + ")";
    }
}
