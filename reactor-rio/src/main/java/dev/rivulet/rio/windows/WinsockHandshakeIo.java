package dev.rivulet.rio.windows;

import dev.rivulet.core.handshake.HandshakeIo;
import dev.rivulet.rio.stream.PollDeadline;
import dev.rivulet.rio.windows.sys.WinErrorException;
import dev.rivulet.rio.windows.sys.WinsockConstants;
import dev.rivulet.rio.windows.sys.Ws2_32;
import dev.rivulet.rio.windows.sys.WsaPollFd;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.SocketTimeoutException;

/**
 * The connection handshake's byte channel over a registered-I/O socket before its request queue exists: every read
 * first waits with {@code WSAPoll} for at most what is left until the deadline, so a peer that trickles its hello is
 * cut off when the handshake's time is up. Writes wait for writability the same way; a handshake message (at most
 * 4 KiB) then fits the socket's send buffer, so the blocking {@code send} returns at once.
 *
 * <p>Written against the documented API and compiled, never run: this machine is Linux (see docs/rio.md).
 */
final class WinsockHandshakeIo implements HandshakeIo {

    private final Ws2_32 ws;
    private final long socket;
    private final long deadlineNanos;

    WinsockHandshakeIo(Ws2_32 ws, long socket, long deadlineNanos) {
        this.ws = ws;
        this.socket = socket;
        this.deadlineNanos = deadlineNanos;
    }

    @Override
    public void write(byte[] bytes) throws IOException {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment out = scratch.allocateFrom(ValueLayout.JAVA_BYTE, bytes);
            MemorySegment pollfd = scratch.allocate(WsaPollFd.LAYOUT);
            long done = 0;
            while (done < bytes.length) {
                await(pollfd, WinsockConstants.POLLWRNORM);
                done += ws.send(socket, out.asSlice(done), 0);
            }
        } catch (WinErrorException e) {
            throw new IOException("send failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void readFully(byte[] into, int off, int len) throws IOException {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment in = scratch.allocate(Math.max(1, len));
            MemorySegment pollfd = scratch.allocate(WsaPollFd.LAYOUT);
            int done = 0;
            while (done < len) {
                await(pollfd, WinsockConstants.POLLRDNORM);
                int n = ws.recv(socket, in.asSlice(done, len - done), 0);
                if (n == 0) {
                    throw new EOFException("peer closed the connection during the handshake");
                }
                MemorySegment.copy(in, ValueLayout.JAVA_BYTE, done, into, off + done, n);
                done += n;
            }
        } catch (WinErrorException e) {
            throw new IOException("recv failed: " + e.getMessage(), e);
        }
    }

    /** Waits until the socket is ready for {@code events}, an error or hang-up is pending, or the deadline passed. */
    private void await(MemorySegment pollfd, int events) throws SocketTimeoutException {
        if (!PollDeadline.await(deadlineNanos, millis -> ws.poll(pollfd, socket, events, millis))) {
            throw new SocketTimeoutException("handshake deadline passed");
        }
    }
}
