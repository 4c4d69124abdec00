package dev.rivulet.rio.uring;

import dev.rivulet.core.admission.AdmissionControl;
import dev.rivulet.core.sys.Descriptors;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.core.sys.ErrnoException;
import dev.rivulet.core.sys.LibcSockets;
import dev.rivulet.rio.stream.AcceptingListener;
import dev.rivulet.rio.stream.StreamAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.foreign.MemorySegment;

/**
 * A listening TCP socket of the io_uring transport: {@code accept4} on the acceptor thread. Accepted sockets are
 * blocking (the handshake bounds its calls with {@code poll(2)}; io_uring's READ_FIXED on a non-blocking socket would
 * answer EAGAIN instead of waiting).
 */
final class UringListener extends AcceptingListener {

    private static final Logger log = LoggerFactory.getLogger(UringListener.class);
    /**
     * Loaded with the listener: when accept fails for want of descriptors, naming the error must not need a class
     * loaded from a jar, which would fail for the same reason.
     */
    private static final String EMFILE = Errno.name(Errno.EMFILE) + " " + Errno.describe(Errno.EMFILE);

    private final int fd;

    UringListener(UringTransport transport, int fd, String address) {
        super(transport, address, "io_uring-accept-");
        this.fd = fd;
    }

    /**
     * The next connection, {@link #RETRY} when the kernel had one that went away (ECONNABORTED) or the call was
     * interrupted; throws for everything else (EMFILE, ENFILE, ENOBUFS, ENOMEM...), which the listener backs off
     * from and retries.
     */
    @Override
    protected long accept() {
        try {
            return LibcSockets.accept4(fd, MemorySegment.NULL, MemorySegment.NULL, LibcSockets.SOCK_CLOEXEC);
        } catch (ErrnoException e) {
            if (!isDisposed() && (e.errno() == Errno.EINTR || e.errno() == Errno.ECONNABORTED
                    || e.errno() == Errno.EAGAIN)) {
                return RETRY;
            }
            throw e;
        }
    }

    @Override
    protected String remoteName(long socket) {
        return StreamAddress.format(UringTransport.SCHEME, LibcSockets.remoteAddress((int) socket));
    }

    @Override
    protected Object source(long socket) {
        return AdmissionControl.sourceOf(LibcSockets.remoteAddress((int) socket).getAddress());
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
            Descriptors.closeOrThrow(fd);
        } catch (ErrnoException e) {
            log.debug("closing listener {} failed", address(), e);
        }
    }
}
