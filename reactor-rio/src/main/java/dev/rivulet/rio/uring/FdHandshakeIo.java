package dev.rivulet.rio.uring;

import dev.rivulet.core.handshake.HandshakeIo;
import dev.rivulet.core.sys.Descriptors;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.core.sys.LibcSockets;
import dev.rivulet.core.sys.Pollfd;
import dev.rivulet.rio.stream.PollDeadline;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketTimeoutException;

/**
 * The connection handshake's byte channel over a connected socket's file descriptor, before the socket joins a ring:
 * every read and write first waits with {@code poll(2)} for at most what is left until the deadline, then moves what
 * the socket has without blocking, so a peer that trickles its bytes (or sends none) is cut off when the handshake's
 * time is up, whichever call it stalls. Short-lived: used by one thread for one handshake; its scratch memory is
 * freed with each call.
 */
final class FdHandshakeIo implements HandshakeIo {

    private final int fd;
    private final long deadlineNanos;

    /** {@code deadlineNanos} on the {@link System#nanoTime()} clock. */
    FdHandshakeIo(int fd, long deadlineNanos) {
        this.fd = fd;
        this.deadlineNanos = deadlineNanos;
    }

    @Override
    public void write(byte[] bytes) throws IOException {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment out = scratch.allocateFrom(ValueLayout.JAVA_BYTE, bytes);
            MemorySegment pollfd = scratch.allocate(Pollfd.LAYOUT);
            long done = 0;
            while (done < bytes.length) {
                await(pollfd, Descriptors.POLLOUT);
                long n = LibcSockets.send(fd, out.asSlice(done),
                        LibcSockets.MSG_NOSIGNAL | LibcSockets.MSG_DONTWAIT);
                if (n >= 0) {
                    done += n;
                } else if (n != -Errno.EAGAIN && n != -Errno.EINTR) {
                    throw failure("send", (int) -n);
                }
            }
        }
    }

    @Override
    public void readFully(byte[] into, int off, int len) throws IOException {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment in = scratch.allocate(Math.max(1, len));
            MemorySegment pollfd = scratch.allocate(Pollfd.LAYOUT);
            int done = 0;
            while (done < len) {
                await(pollfd, Descriptors.POLLIN);
                long n = LibcSockets.recv(fd, in.asSlice(done, len - done), LibcSockets.MSG_DONTWAIT);
                if (n > 0) {
                    MemorySegment.copy(in, ValueLayout.JAVA_BYTE, done, into, off + done, (int) n);
                    done += (int) n;
                } else if (n == 0) {
                    throw new EOFException("peer closed the connection during the handshake");
                } else if (n != -Errno.EAGAIN && n != -Errno.EINTR) {
                    throw failure("recv", (int) -n);
                }
            }
        }
    }

    /** Waits until the socket is ready for {@code events}, an error or hang-up is pending, or the deadline passed. */
    private void await(MemorySegment pollfd, int events) throws SocketTimeoutException {
        if (!PollDeadline.await(deadlineNanos, millis -> Descriptors.poll(pollfd, fd, events, millis))) {
            throw new SocketTimeoutException("handshake deadline passed");
        }
    }

    private static IOException failure(String call, int errno) {
        return new IOException(call + " failed: " + Errno.name(errno) + " (" + Errno.describe(errno) + ")");
    }
}
