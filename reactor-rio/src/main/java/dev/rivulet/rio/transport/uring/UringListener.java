package dev.rivulet.rio.transport.uring;

import dev.rivulet.core.Endpoint;
import dev.rivulet.rio.stream.AcceptingListener;
import dev.rivulet.rio.uring.Errno;
import dev.rivulet.rio.uring.ErrnoException;
import dev.rivulet.rio.uring.LibcSockets;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;

/** A listening TCP socket of the io_uring transport: {@code accept4} on the acceptor thread. */
final class UringListener extends AcceptingListener {

    private static final Logger log = LoggerFactory.getLogger(UringListener.class);
    private static final int ECONNABORTED = 103;

    private final UringTransport transport;
    private final int fd;

    UringListener(UringTransport transport, int fd, String address) {
        super(address, "io_uring-accept-");
        this.transport = transport;
        this.fd = fd;
    }

    @Override
    protected long accept() {
        try {
            return LibcSockets.accept4(fd, MemorySegment.NULL, MemorySegment.NULL, LibcSockets.SOCK_CLOEXEC);
        } catch (ErrnoException e) {
            if (!disposing() && (e.errno() == Errno.EINTR || e.errno() == ECONNABORTED || e.errno() == Errno.EAGAIN)) {
                return RETRY;
            }
            throw e;
        }
    }

    @Override
    protected Endpoint attach(long socket) {
        int conn = (int) socket;
        LibcSockets.setsockopt(conn, LibcSockets.IPPROTO_TCP, LibcSockets.TCP_NODELAY, 1);
        return transport.attach(socket, UringTransport.format(LibcSockets.remoteAddress(conn)));
    }

    @Override
    protected void closeAccepted(long socket) {
        try {
            LibcSockets.close((int) socket);
        } catch (ErrnoException ignored) {
            // gone either way
        }
    }

    @Override
    protected void interruptAccept() {
        try {
            LibcSockets.shutdown(fd, LibcSockets.SHUT_RDWR); // ends a blocked accept4 (EINVAL)
        } catch (ErrnoException e) {
            // not listening any more: nothing to end
        }
    }

    @Override
    protected void closeListening() {
        try {
            LibcSockets.close(fd);
        } catch (ErrnoException e) {
            log.debug("closing listener {} failed", address(), e);
        }
    }
}
