package dev.rivulet.rio.stream;

import dev.rivulet.core.Capabilities;
import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.engine.AbstractTransport;
import dev.rivulet.core.engine.EndpointEngine;
import dev.rivulet.core.progress.ProgressLoop;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * What the registered-buffer socket transports share: options and capabilities, {@code scheme://host:port}
 * addresses, and the connect / bind / attach flow. A system layer (io_uring, RIO) supplies only its socket calls and
 * the {@link StreamChannel} of a connected socket; the transport logic above it is {@link StreamWire}.
 *
 * <p>Sockets are named by a {@code long} handle (a Linux fd, a Windows SOCKET).
 */
public abstract class StreamTransport extends AbstractTransport {

    private final String scheme;
    protected final StreamTransportSettings settings;
    protected final Capabilities caps;

    /** Options are read under {@code scheme + "."} ({@code uring.copyLimit}, {@code rio.copyLimit}, ...). */
    protected StreamTransport(String name, String scheme, TransportConfig config, double bandwidth, Duration latency) {
        super(name, config, StreamTransportSettings::softwareRegistration);
        this.scheme = scheme;
        this.settings = StreamTransportSettings.from(config, scheme + ".");
        this.caps = settings.capabilities(name, config, bandwidth, latency);
    }

    /** A socket connected to {@code target} with TCP_NODELAY; failures as {@code TransportException}s. */
    protected abstract long connectSocket(String address, InetSocketAddress target);

    /** A listener bound to {@code at}, not started; failures as {@code TransportException}s. */
    protected abstract AcceptingListener listen(String address, InetSocketAddress at);

    /** The channel of a connected socket, served by {@code loop}'s completion queue. */
    protected abstract StreamChannel newChannel(ProgressLoop loop, long socket, String remote);

    /** Closes a socket that never became an endpoint. */
    protected abstract void closeSocket(long socket);

    @Override
    public Capabilities capabilities() {
        return caps;
    }

    protected final String addressOf(InetSocketAddress address) {
        return StreamAddress.format(scheme, address);
    }

    @Override
    public Mono<Endpoint> connect(String address) {
        return Mono.fromCallable(() -> {
            checkOpen();
            InetSocketAddress target = StreamAddress.parse(scheme, address);
            long socket = connectSocket(address, target);
            try {
                return (Endpoint) attach(socket, addressOf(target));
            } catch (RuntimeException e) {
                closeSocket(socket);
                throw e;
            }
        }).subscribeOn(Schedulers.boundedElastic()); // a blocking connect, off the caller's and the loops' threads
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

    /** Makes the endpoint of a connected socket, on the next progress loop and that loop's completion queue. */
    public EndpointEngine attach(long socket, String remote) {
        checkOpen();
        ProgressLoop loop = progress.nextLoop();
        StreamChannel channel = newChannel(loop, socket, remote);
        StreamWire wire = new StreamWire(channel, memory, caps, remote, settings.copyLimit(),
                settings.maxBatchBytes(), loop, config.liveness());
        // Runs before the endpoint's registration and first operation: the loop runs tasks in order.
        loop.execute(() -> channel.attach(wire));
        return newEndpoint(wire, loop);
    }
}
