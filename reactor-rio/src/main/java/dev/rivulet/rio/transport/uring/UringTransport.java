package dev.rivulet.rio.transport.uring;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Operation;
import dev.rivulet.core.Ordering;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.engine.AbstractTransport;
import dev.rivulet.core.engine.EndpointEngine;
import dev.rivulet.core.error.ConnectionRefusedException;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.TransportException;
import dev.rivulet.core.memory.NativeRegistration;
import dev.rivulet.core.progress.ProgressLoop;
import dev.rivulet.rio.stream.StreamWire;
import dev.rivulet.rio.uring.Errno;
import dev.rivulet.rio.uring.ErrnoException;
import dev.rivulet.rio.uring.LibcSockets;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * TCP through io_uring ({@code uring://host:port}): one ring per progress loop, registered staging and receive
 * buffers per connection, and the stream transport logic of {@link StreamWire} (framing, credits, software RMA
 * executed by the target's progress thread, flush).
 *
 * <p>Options: {@code uring.maxMessageSize} (16 MiB), {@code uring.stagingBytes} and {@code uring.receiveBytes}
 * (256 KiB each, per connection), {@code uring.copyLimit} (payloads up to it are copied into staging and coalesced,
 * 16 KiB), {@code uring.maxBatchBytes} (16 KiB), {@code uring.ringEntries} (256), {@code uring.fixedSlots} (fixed
 * buffer slots per ring, two per connection, 512) and {@code uring.zeroCopy} (SEND_ZC of the staging buffer where
 * the kernel has it, true).
 */
public final class UringTransport extends AbstractTransport {

    public static final String NAME = "io_uring";
    public static final String SCHEME = "uring";

    private final Capabilities caps;
    private final int stagingBytes;
    private final int receiveBytes;
    private final int copyLimit;
    private final int maxBatchBytes;
    private final int ringEntries;
    private final int fixedSlots;
    private final boolean zeroCopy;
    private final Map<ProgressLoop, UringLoop> rings = new ConcurrentHashMap<>();

    UringTransport(TransportConfig config) {
        super(NAME, config, UringTransport::register);
        long maxMessage = config.intOption("uring.maxMessageSize", 16 << 20);
        this.stagingBytes = config.intOption("uring.stagingBytes", 256 << 10);
        this.receiveBytes = config.intOption("uring.receiveBytes", 256 << 10);
        this.copyLimit = config.intOption("uring.copyLimit", 16 << 10);
        this.maxBatchBytes = config.intOption("uring.maxBatchBytes", 16 << 10);
        this.ringEntries = config.intOption("uring.ringEntries", 256);
        this.fixedSlots = config.intOption("uring.fixedSlots", 512);
        this.zeroCopy = Boolean.parseBoolean(config.optionOr("uring.zeroCopy", "true"));
        this.caps = new Capabilities(NAME, EnumSet.allOf(Operation.class), maxMessage, copyLimit, 1,
                EnumSet.of(Ordering.SEND_AFTER_SEND, Ordering.PUT_AFTER_PUT, Ordering.RMA_AFTER_SEND),
                config.sendQueueDepth(), config.receiveQueueDepth(), 5e9, Duration.ofNanos(15_000),
                "every earlier message was delivered to the peer's endpoint and every earlier put and atomic was "
                        + "applied to the peer's memory (a FLUSH frame answered after the peer processed everything "
                        + "before it)", maxMessage, true);
    }

    /**
     * Software RMA needs no provider registration: the key is the domain's random proposal and peers name virtual
     * addresses, checked by {@code MemoryDomain.resolveRemote} when a request arrives.
     */
    private static NativeRegistration register(MemorySegment segment, Set<?> access, long proposedKey) {
        return new NativeRegistration(proposedKey, segment.address(), MemorySegment.NULL, null, null);
    }

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    @Override
    public Mono<Endpoint> connect(String address) {
        return Mono.fromCallable(() -> {
            checkOpen();
            InetSocketAddress target = UringAddress.parse(address);
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
                return (Endpoint) attach(fd, UringAddress.format(target));
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
            InetSocketAddress at = UringAddress.parse(address);
            int fd = LibcSockets.socket(LibcSockets.family(at), LibcSockets.SOCK_STREAM | LibcSockets.SOCK_CLOEXEC, 0);
            try {
                LibcSockets.setsockopt(fd, LibcSockets.SOL_SOCKET, LibcSockets.SO_REUSEADDR, 1);
                LibcSockets.bind(fd, at);
                LibcSockets.listen(fd, 512);
                UringListener l = new UringListener(this, fd, UringAddress.format(LibcSockets.localAddress(fd)));
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
        UringLoop ring = ringFor(loop);
        UringChannel channel = new UringChannel(ring, fd, stagingBytes, receiveBytes);
        StreamWire wire = new StreamWire(channel, memory, caps, remote, copyLimit, maxBatchBytes);
        // Runs before the endpoint's registration and first operation: the loop runs tasks in order.
        loop.execute(() -> channel.attach(wire));
        return newEndpoint(wire, loop);
    }

    /** The ring of {@code loop}, created on first use on the loop's own thread (SINGLE_ISSUER). */
    private UringLoop ringFor(ProgressLoop loop) {
        UringLoop r = rings.get(loop);
        if (r != null) {
            return r;
        }
        synchronized (rings) {
            r = rings.get(loop);
            if (r != null) {
                return r;
            }
            if (loop.inLoop()) {
                r = startRing(loop);
            } else {
                CompletableFuture<UringLoop> made = new CompletableFuture<>();
                loop.execute(() -> {
                    try {
                        made.complete(startRing(loop));
                    } catch (Throwable t) {
                        made.completeExceptionally(t);
                    }
                });
                try {
                    r = made.get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new ProviderException("could not create the io_uring of " + loop.name() + ": " + e, e);
                }
            }
            rings.put(loop, r);
            return r;
        }
    }

    private UringLoop startRing(ProgressLoop loop) {
        UringLoop r = new UringLoop(loop, ringEntries, fixedSlots, zeroCopy);
        loop.register(r);
        loop.waiter(r);
        return r;
    }

    @Override
    protected void closeResources() {
        rings.values().forEach(UringLoop::close);
        rings.clear();
    }

    private static void closeQuietly(int fd) {
        try {
            LibcSockets.close(fd);
        } catch (ErrnoException e) {
            // gone either way
        }
    }
}
