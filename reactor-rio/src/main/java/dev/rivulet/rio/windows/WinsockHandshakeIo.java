package dev.rivulet.rio.windows;

import dev.rivulet.rio.stream.PolledHandshakeIo;
import dev.rivulet.rio.windows.sys.WinErrorException;
import dev.rivulet.rio.windows.sys.WinsockConstants;
import dev.rivulet.rio.windows.sys.Ws2_32;
import dev.rivulet.rio.windows.sys.WsaPollFd;

import java.io.IOException;
import java.lang.foreign.MemorySegment;

/**
 * The connection handshake's byte channel over a registered-I/O socket before its request queue exists:
 * {@code WSAPoll} until the deadline, then {@code send}/{@code recv} on the blocking socket. Once the poll said
 * readable, {@code recv} returns at once; a handshake message (at most 4 KiB) fits the socket's send buffer once it
 * is writable, so the blocking {@code send} returns at once too.
 *
 * <p>Written against the documented API and compiled, not yet run on Windows (see docs/rio.md).
 */
final class WinsockHandshakeIo extends PolledHandshakeIo {

    private final Ws2_32 ws;
    private final long socket;

    WinsockHandshakeIo(Ws2_32 ws, long socket, long deadlineNanos) {
        super(deadlineNanos, WsaPollFd.LAYOUT, WinsockConstants.POLLRDNORM, WinsockConstants.POLLWRNORM);
        this.ws = ws;
        this.socket = socket;
    }

    @Override
    public void write(byte[] bytes) throws IOException {
        try {
            super.write(bytes);
        } catch (WinErrorException e) {
            throw new IOException("send failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void readFully(byte[] into, int off, int len) throws IOException {
        try {
            super.readFully(into, off, len);
        } catch (WinErrorException e) {
            throw new IOException("recv failed: " + e.getMessage(), e);
        }
    }

    @Override
    protected int poll(MemorySegment pollfd, int events, int timeoutMillis) {
        return ws.poll(pollfd, socket, events, timeoutMillis); // an error or hang-up too: the next call reports it
    }

    @Override
    protected long send(MemorySegment bytes) {
        return ws.send(socket, bytes, 0);
    }

    @Override
    protected int receive(MemorySegment into) {
        int n = ws.recv(socket, into, 0);
        return n == 0 ? -1 : n;
    }
}
