package dev.rivulet.rio.shm;

import dev.rivulet.core.handshake.HandshakeIo;

import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * The handshake's byte channel over a Unix domain {@link SocketChannel} (which has no {@code java.net.Socket} to
 * put a read timeout on): the channel runs non-blocking, and each wait goes through a selector that gives up at the
 * set-up's deadline, so a peer trickling its bytes is cut off when the time is up. {@link #close()} closes the
 * selector only; the channel stays, non-blocking, for the connection.
 */
final class ChannelHandshakeIo implements HandshakeIo, AutoCloseable {

    private final SocketChannel channel;
    private final long deadlineNanos;
    private final Selector selector;

    ChannelHandshakeIo(SocketChannel channel, long deadlineNanos) throws IOException {
        this.channel = channel;
        this.deadlineNanos = deadlineNanos;
        channel.configureBlocking(false);
        this.selector = Selector.open();
    }

    @Override
    public void write(byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            if (channel.write(b) == 0) {
                await(SelectionKey.OP_WRITE);
            }
        }
    }

    @Override
    public void readFully(byte[] into, int off, int len) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(into, off, len);
        while (b.hasRemaining()) {
            int n = channel.read(b);
            if (n < 0) {
                throw new EOFException("peer closed the connection during set-up");
            }
            if (n == 0) {
                await(SelectionKey.OP_READ);
            }
        }
    }

    private void await(int op) throws IOException {
        long left = deadlineNanos - System.nanoTime();
        if (left <= 0) {
            throw new SocketTimeoutException("set-up deadline passed");
        }
        SelectionKey key = channel.register(selector, op);
        try {
            selector.select(Math.max(1, left / 1_000_000));
        } finally {
            key.cancel();
            selector.selectNow(); // flushes the cancelled key so the channel can register again
        }
    }

    @Override
    public void close() {
        try {
            selector.close();
        } catch (IOException e) {
            // nothing held
        }
    }
}
