package dev.rivulet.rio.uring;

import dev.rivulet.core.sys.Descriptors;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.core.sys.LibcSockets;
import dev.rivulet.core.sys.Pollfd;
import dev.rivulet.rio.stream.PolledHandshakeIo;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * The connection handshake's byte channel over a connected socket's file descriptor, before the socket joins a ring:
 * {@code poll(2)} until the deadline, then {@code send}/{@code recv} without blocking ({@code MSG_DONTWAIT}), so a
 * call that finds the socket not ready after all ({@code EAGAIN}, {@code EINTR}) polls again rather than waiting
 * past the deadline.
 */
final class FdHandshakeIo extends PolledHandshakeIo {

    private final int fd;

    /** {@code deadlineNanos} on the {@link System#nanoTime()} clock. */
    FdHandshakeIo(int fd, long deadlineNanos) {
        super(deadlineNanos, Pollfd.LAYOUT, Descriptors.POLLIN, Descriptors.POLLOUT);
        this.fd = fd;
    }

    @Override
    protected int poll(MemorySegment pollfd, int events, int timeoutMillis) {
        return Descriptors.poll(pollfd, fd, events, timeoutMillis); // POLLERR/POLLHUP too: the next call reports it
    }

    @Override
    protected long send(MemorySegment bytes) throws IOException {
        long n = LibcSockets.send(fd, bytes, LibcSockets.MSG_NOSIGNAL | LibcSockets.MSG_DONTWAIT);
        if (n >= 0) {
            return n;
        }
        if (n != -Errno.EAGAIN && n != -Errno.EINTR) {
            throw failure("send", (int) -n);
        }
        return 0;
    }

    @Override
    protected int receive(MemorySegment into) throws IOException {
        long n = LibcSockets.recv(fd, into, LibcSockets.MSG_DONTWAIT);
        if (n > 0) {
            return (int) n;
        }
        if (n == 0) {
            return -1;
        }
        if (n != -Errno.EAGAIN && n != -Errno.EINTR) {
            throw failure("recv", (int) -n);
        }
        return 0;
    }

    private static IOException failure(String call, int errno) {
        return new IOException(call + " failed: " + Errno.name(errno) + " (" + Errno.describe(errno) + ")");
    }
}
