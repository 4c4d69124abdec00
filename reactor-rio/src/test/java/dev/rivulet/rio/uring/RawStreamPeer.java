package dev.rivulet.rio.uring;

import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.handshake.Handshake;
import dev.rivulet.core.security.SecuritySettings;
import dev.rivulet.core.handshake.SocketHandshakeIo;
import dev.rivulet.rio.stream.FrameHeader;
import dev.rivulet.rio.stream.FrameKind;
import dev.rivulet.rio.stream.RmaRequest;
import dev.rivulet.rio.stream.StreamAddress;
import dev.rivulet.rio.stream.StreamLimits;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * A stream peer made by hand, for tests of what a listener does with a peer that does not behave: a plain TCP socket
 * that may run the connection handshake (as a client) and then writes frames built byte by byte, or reads and answers
 * only what the test says. Not a Rivulet endpoint: nothing here enforces the protocol.
 */
final class RawStreamPeer implements AutoCloseable {

    /** A frame as read: its kind, tag and payload. */
    record Frame(int kind, long tag, byte[] payload) {
        int controlType() {
            return ControlWord.type(tag);
        }
    }

    private final SocketChannel channel;
    private InputStream in;

    private RawStreamPeer(SocketChannel channel) {
        this.channel = channel;
    }

    /** Connects to a {@code uring://} address; {@code receiveBuffer > 0} sets a small SO_RCVBUF first. */
    static RawStreamPeer connect(String address, int receiveBuffer) throws IOException {
        return connect(address, receiveBuffer, null);
    }

    /** As {@link #connect(String, int)}, from {@code local} (e.g. 127.0.0.2, another source on loopback) if given. */
    static RawStreamPeer connect(String address, int receiveBuffer, InetAddress local) throws IOException {
        InetSocketAddress target = StreamAddress.parse(UringTransport.SCHEME, address);
        SocketChannel ch = SocketChannel.open();
        if (receiveBuffer > 0) {
            ch.setOption(StandardSocketOptions.SO_RCVBUF, receiveBuffer);
        }
        if (local != null) {
            ch.bind(new InetSocketAddress(local, 0));
        }
        ch.connect(target);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        return new RawStreamPeer(ch);
    }

    static RawStreamPeer connect(String address) throws IOException {
        return connect(address, 0);
    }

    /** Runs the client side of the handshake with {@code settings}; returns the limits the listener announced. */
    StreamLimits handshake(SecuritySettings settings) throws IOException {
        long deadline = System.nanoTime() + settings.handshakeTimeout().toNanos();
        byte[] accepted = Handshake.client(new SocketHandshakeIo(channel.socket(), deadline), settings,
                Handshake.KIND_STREAM, new byte[0], new StreamLimits(16 << 20, 16 << 10).encode());
        return StreamLimits.decode(accepted);
    }

    /** Writes raw bytes, blocking until the kernel took them all. */
    void write(byte[] bytes) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (b.hasRemaining()) {
            channel.write(b);
        }
    }

    static byte[] header(int kind, long tag, int length) {
        MemorySegment s = MemorySegment.ofArray(new byte[FrameHeader.BYTES]);
        FrameHeader.write(s, 0, kind, tag, length);
        return s.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    static byte[] frame(int kind, long tag, byte[] payload) {
        byte[] h = header(kind, tag, payload.length);
        byte[] f = new byte[h.length + payload.length];
        System.arraycopy(h, 0, f, 0, h.length);
        System.arraycopy(payload, 0, f, h.length, payload.length);
        return f;
    }

    /** The 40-byte request of a PUT, GET or ATOMIC. */
    static byte[] request(long address, long key, int length) {
        MemorySegment s = MemorySegment.ofArray(new byte[RmaRequest.BYTES]);
        RmaRequest.write(s, 0, address, key, length, 0, 0, 0, 0);
        return s.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] c = new byte[a.length + b.length];
        System.arraycopy(a, 0, c, 0, a.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }

    /** Sends a standalone CREDIT word granting {@code n} messages. */
    void credit(long n) throws IOException {
        write(header(FrameKind.MESSAGE, ControlWord.encode(ControlWord.CREDIT, n), 0));
    }

    /**
     * Writes without blocking what the socket takes of {@code bytes} repeated up to {@code times}, and returns how
     * many bytes it took once nothing more went in for {@code stall} (the other side stopped reading), or all of
     * them.
     */
    long writeUntilStalled(byte[] bytes, int times, Duration stall) throws IOException, InterruptedException {
        channel.configureBlocking(false);
        try {
            long total = 0;
            long lastProgress = System.nanoTime();
            ByteBuffer b = ByteBuffer.wrap(bytes);
            int sent = 0;
            while (sent < times) {
                int n = channel.write(b);
                total += n;
                if (n > 0) {
                    lastProgress = System.nanoTime();
                }
                if (!b.hasRemaining()) {
                    b.rewind();
                    sent++;
                } else if (n == 0) {
                    if (System.nanoTime() - lastProgress > stall.toNanos()) {
                        return total;
                    }
                    Thread.sleep(5);
                }
            }
            return total;
        } finally {
            channel.configureBlocking(true);
        }
    }

    private InputStream in() throws IOException {
        if (in == null) {
            in = channel.socket().getInputStream();
        }
        return in;
    }

    /** The next frame, or null when none came within {@code timeout}; EOFException at end of stream. */
    Frame read(Duration timeout) throws IOException {
        channel.socket().setSoTimeout((int) Math.max(1, timeout.toMillis()));
        byte[] h = new byte[FrameHeader.BYTES];
        try {
            readFully(h, 0, h.length, true);
        } catch (SocketTimeoutException e) {
            return null;
        }
        MemorySegment s = MemorySegment.ofArray(h);
        int len = (int) FrameHeader.length(s, 0);
        if (len > (64 << 20)) {
            throw new IOException("frame of " + len + " bytes");
        }
        byte[] payload = new byte[len];
        channel.socket().setSoTimeout(10_000);
        readFully(payload, 0, len, false);
        return new Frame(FrameHeader.kind(s, 0), FrameHeader.tag(s, 0), payload);
    }

    /** The next frame that is not a CREDIT word, a HEARTBEAT (answered) or a HEARTBEAT_ACK; null on timeout. */
    Frame readSignificant(Duration timeout) throws IOException {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            Frame f = read(Duration.ofNanos(left));
            if (f == null) {
                return null;
            }
            if (f.kind() == FrameKind.HEARTBEAT) {
                write(header(FrameKind.HEARTBEAT_ACK, f.tag(), 0));
                continue;
            }
            if (f.kind() == FrameKind.HEARTBEAT_ACK
                    || (f.kind() == FrameKind.MESSAGE && f.controlType() == ControlWord.CREDIT)) {
                continue;
            }
            return f;
        }
    }

    private void readFully(byte[] into, int off, int len, boolean timeoutBeforeFirst) throws IOException {
        int done = 0;
        while (done < len) {
            int n;
            try {
                n = in().read(into, off + done, len - done);
            } catch (SocketTimeoutException e) {
                if (done == 0 && timeoutBeforeFirst) {
                    throw e;
                }
                throw new IOException("frame cut short after " + done + " of " + len + " bytes", e);
            }
            if (n < 0) {
                throw new EOFException("end of stream after " + done + " of " + len + " bytes");
            }
            done += n;
        }
    }

    /**
     * Reads (and drops) until the other side ends the connection; true when it did within {@code timeout} (end of
     * stream or a reset), false when it is still open then.
     */
    boolean awaitClosed(Duration timeout) throws IOException {
        long end = System.nanoTime() + timeout.toNanos();
        byte[] sink = new byte[64 << 10];
        while (true) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            channel.socket().setSoTimeout((int) Math.max(1, left / 1_000_000));
            try {
                if (in().read(sink) < 0) {
                    return true;
                }
            } catch (SocketTimeoutException e) {
                return false;
            } catch (SocketException e) {
                return true; // reset
            }
        }
    }

    /** A little-endian u64, as an atomic's answer carries it. */
    static long littleEndianLong(byte[] b) {
        return ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    @Override
    public void close() throws IOException {
        channel.close();
    }
}
