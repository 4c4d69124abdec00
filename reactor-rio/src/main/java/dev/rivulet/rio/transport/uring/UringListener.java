package dev.rivulet.rio.transport.uring;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.rio.uring.Errno;
import dev.rivulet.rio.uring.ErrnoException;
import dev.rivulet.rio.uring.LibcSockets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import java.lang.foreign.MemorySegment;

/**
 * A listening TCP socket. Connections are accepted with a blocking {@code accept4} on a thread of their own: accept
 * is rare, and keeping it off the progress loop keeps the ring's hot path to data only. Each accepted socket becomes
 * an endpoint whose data goes through its loop's ring.
 */
final class UringListener implements Listener {

    private static final Logger log = LoggerFactory.getLogger(UringListener.class);
    private static final int ECONNABORTED = 103;

    private final UringTransport transport;
    private final int fd;
    private final String address;
    private final Sinks.Many<Endpoint> accepted = Sinks.many().unicast().onBackpressureBuffer();
    private final Sinks.Empty<Void> disposed = Sinks.empty();
    private final Thread acceptor;
    private volatile boolean isDisposed;

    UringListener(UringTransport transport, int fd, String address) {
        this.transport = transport;
        this.fd = fd;
        this.address = address;
        this.acceptor = Thread.ofPlatform().daemon(true).name("io_uring-accept-" + address).unstarted(this::run);
    }

    void start() {
        acceptor.start();
    }

    private void run() {
        while (!isDisposed) {
            int conn;
            try {
                conn = LibcSockets.accept4(fd, MemorySegment.NULL, MemorySegment.NULL, LibcSockets.SOCK_CLOEXEC);
            } catch (ErrnoException e) {
                if (isDisposed) {
                    break;
                }
                if (e.errno() == Errno.EINTR || e.errno() == ECONNABORTED || e.errno() == Errno.EAGAIN) {
                    continue;
                }
                log.warn("accept on {} failed; the listener stops", address, e);
                break;
            }
            try {
                LibcSockets.setsockopt(conn, LibcSockets.IPPROTO_TCP, LibcSockets.TCP_NODELAY, 1);
                String peer = UringAddress.format(LibcSockets.remoteAddress(conn));
                Endpoint e = transport.attach(conn, peer);
                if (!offer(e)) {
                    e.dispose();
                }
            } catch (RuntimeException e) {
                log.warn("could not set up the connection accepted on {}", address, e);
                try {
                    LibcSockets.close(conn);
                } catch (ErrnoException ignored) {
                    // gone either way
                }
            }
        }
    }

    private synchronized boolean offer(Endpoint e) {
        return !isDisposed && accepted.tryEmitNext(e).isSuccess();
    }

    @Override
    public String address() {
        return address;
    }

    @Override
    public Flux<Endpoint> accepted() {
        return accepted.asFlux();
    }

    @Override
    public Mono<Void> onDispose() {
        return disposed.asMono();
    }

    @Override
    public void dispose() {
        synchronized (this) {
            if (isDisposed) {
                return;
            }
            isDisposed = true;
        }
        try {
            LibcSockets.shutdown(fd, LibcSockets.SHUT_RDWR); // ends a blocked accept4 (EINVAL)
        } catch (ErrnoException e) {
            // not listening any more: nothing to end
        }
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try {
            LibcSockets.close(fd);
        } catch (ErrnoException e) {
            log.debug("closing listener {} failed", address, e);
        }
        accepted.tryEmitComplete();
        disposed.tryEmitEmpty();
    }

    @Override
    public boolean isDisposed() {
        return isDisposed;
    }
}
