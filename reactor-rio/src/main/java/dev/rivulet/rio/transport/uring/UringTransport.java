package dev.rivulet.rio.transport.uring;

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
import dev.rivulet.rio.uring.Errno;
import dev.rivulet.rio.uring.ErrnoException;
import dev.rivulet.rio.uring.LibcSockets;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * TCP through io_uring ({@code uring://host:port}): one ring per progress loop, registered staging and receive
 * buffers per connection, and the stream transport logic of {@link StreamWire} (framing, credits, software RMA
 * executed by the target's progress thread, flush).
 *
 * <p>Options: those of {@link StreamTransportSettings} under {@code uring.}, plus {@code uring.ringEntries} (256),
 * {@code uring.fixedSlots} (fixed buffer slots per ring, two per connection, 512), {@code uring.zeroCopy}
 * (SEND_ZC of the staging buffer where the kernel has it, true) and {@code uring.zeroCopyMinBytes} (the smallest
 * staged write sent with SEND_ZC, 16 KiB; smaller ones go out with plain SEND).
 */
public final class UringTransport extends AbstractTransport {

    public static final String NAME = "io_uring";
    public static final String SCHEME = "uring";

    private final Capabilities caps;
    private final StreamTransportSettings settings;
    private final int ringEntries;
    private final int fixedSlots;
    private final boolean zeroCopy;
    private final int zeroCopyMinBytes;
    private final PerLoop<UringLoop> rings = new PerLoop<>("io_uring", this::startRing);

    UringTransport(TransportConfig config) {
        super(NAME, config, StreamTransportSettings::softwareRegistration);
        this.settings = StreamTransportSettings.from(config, "uring.");
        this.ringEntries = config.intOption("uring.ringEntries", 256);
        this.fixedSlots = config.intOption("uring.fixedSlots", 512);
        this.zeroCopy = Boolean.parseBoolean(config.optionOr("uring.zeroCopy", "true"));
        this.zeroCopyMinBytes = config.intOption("uring.zeroCopyMinBytes", 16 << 10);
        this.caps = settings.capabilities(NAME, config, 5e9, Duration.ofNanos(15_000));
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
            int fd = LibcSockets.socket(LibcSockets.family(target), LibcSockets.SOCK_STREAM | LibcSockets.SOCK_CLOEXEC,
                    0);
            try {
                LibcSockets.connect(fd, target);
                LibcSockets.setsockopt(fd, LibcSockets.IPPROTO_TCP, LibcSockets.TCP_NODELAY, 1);
            } catch (ErrnoException e) {
                closeQuietly(fd);
                String text = Errno.name(e.errno()) + " (" + Errno.describe(e.errno()) + ")";
                if (e.errno() == Errno.ECONNREFUSED) {
                    throw new ConnectionRefusedException("nobody listens at " + address + ": " + text, NAME,
                            e.errno(), text, e);
                }
                throw new TransportException("connect to " + address + " failed: " + text, NAME, e.errno(), text, e);
            }
            try {
                return (Endpoint) attach(fd, format(target));
            } catch (RuntimeException e) {
                closeQuietly(fd);
                throw e;
            }
        }).subscribeOn(Schedulers.boundedElastic());
    }

    @Override
    public Mono<Listener> bind(String address) {
        return Mono.fromCallable(() -> {
            checkOpen();
            InetSocketAddress at = parse(address);
            int fd = LibcSockets.socket(LibcSockets.family(at), LibcSockets.SOCK_STREAM | LibcSockets.SOCK_CLOEXEC, 0);
            try {
                LibcSockets.setsockopt(fd, LibcSockets.SOL_SOCKET, LibcSockets.SO_REUSEADDR, 1);
                LibcSockets.bind(fd, at);
                LibcSockets.listen(fd, 512);
                UringListener l = new UringListener(this, fd, format(LibcSockets.localAddress(fd)));
                track(l);
                l.start();
                return (Listener) l;
            } catch (ErrnoException e) {
                closeQuietly(fd);
                String text = Errno.name(e.errno()) + " (" + Errno.describe(e.errno()) + ")";
                throw new TransportException("bind to " + address + " failed: " + text, NAME, e.errno(), text, e);
            }
        });
    }

    /** Makes the endpoint of a connected socket, on the next progress loop and that loop's ring. */
    EndpointEngine attach(int fd, String remote) {
        checkOpen();
        ProgressLoop loop = progress.nextLoop();
        UringLoop ring = rings.of(loop);
        UringChannel channel = new UringChannel(ring, fd, settings.stagingBytes(), settings.receiveBytes());
        StreamWire wire = new StreamWire(channel, memory, caps, remote, settings.copyLimit(),
                settings.maxBatchBytes());
        // Runs before the endpoint's registration and first operation: the loop runs tasks in order.
        loop.execute(() -> channel.attach(wire));
        return newEndpoint(wire, loop);
    }

    private UringLoop startRing(ProgressLoop loop) {
        UringLoop r = new UringLoop(loop, ringEntries, fixedSlots, zeroCopy, zeroCopyMinBytes);
        loop.register(r);
        loop.waiter(r);
        return r;
    }

    @Override
    protected void closeResources() {
        rings.drain().forEach(UringLoop::close);
    }

    private static void closeQuietly(int fd) {
        try {
            LibcSockets.close(fd);
        } catch (ErrnoException e) {
            // gone either way
        }
    }
}
