package dev.rivulet.core.handshake;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * A {@link HandshakeIo} over a {@link Socket} (plain or {@link javax.net.ssl.SSLSocket}): every read waits at most
 * until the deadline, however the peer trickles its bytes, so a peer sending one byte every few seconds is cut off
 * when the handshake's time is up.
 */
public final class SocketHandshakeIo implements HandshakeIo {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final long deadlineNanos;

    /** {@code deadlineNanos} on the {@link System#nanoTime()} clock. */
    public SocketHandshakeIo(Socket socket, long deadlineNanos) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.deadlineNanos = deadlineNanos;
    }

    @Override
    public void write(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    @Override
    public void readFully(byte[] into, int off, int len) throws IOException {
        int done = 0;
        while (done < len) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0) {
                throw new SocketTimeoutException("handshake deadline passed");
            }
            socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, left / 1_000_000)));
            int n = in.read(into, off + done, len - done);
            if (n < 0) {
                throw new EOFException("peer closed the connection during the handshake");
            }
            done += n;
        }
    }
}
