package dev.rivulet.samples.pingpong;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.function.IntConsumer;

/**
 * fi_pingpong's out-of-band TCP connection: the endpoint names, then per size a sync ({@code q}/{@code a}) and the
 * client's receive count ({@code cnt ok}).
 *
 * <p>fi_pingpong reads each item with a single {@code recv()} of the expected size and no loop for short reads,
 * so every item here leaves in one write. This side reads fully, whatever the peer's writes look like.
 */
final class ControlChannel implements AutoCloseable {

    /** fi_pingpong refuses longer names ({@code PP_MAX_ADDRLEN}). */
    static final int MAX_NAME_LENGTH = 1024;
    /** The client's count: decimal ASCII, NUL padded to exactly this many bytes ({@code PP_MSG_LEN_CNT}). */
    static final int COUNT_LENGTH = 10;

    private static final byte[] SYNC_Q = {'q', 0};
    private static final byte[] SYNC_A = {'a', 0};
    private static final byte[] COUNT_OK = "cnt ok\0".getBytes(StandardCharsets.US_ASCII);

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private final Duration stallTimeout;

    private ControlChannel(Socket socket, Duration stallTimeout) throws IOException {
        this.socket = socket;
        this.stallTimeout = stallTimeout;
        // The exchanges are tiny and strictly alternating: without this, Nagle's algorithm and delayed ACKs
        // could hold a sync message back for tens of milliseconds.
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(Math.toIntExact(stallTimeout.toMillis()));
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    /**
     * Server: listens on every IPv4 address at {@code port} (address reuse on, as fi_pingpong), accepts one
     * client and stops listening. {@code onListening} gets the bound port once clients can connect.
     */
    static ControlChannel accept(int port, Duration stallTimeout, IntConsumer onListening) throws IOException {
        try (ServerSocket listener = new ServerSocket()) {
            listener.setReuseAddress(true);
            listener.bind(new InetSocketAddress("0.0.0.0", port), 10);
            listener.setSoTimeout(Math.toIntExact(stallTimeout.toMillis()));
            onListening.accept(listener.getLocalPort());
            try {
                return new ControlChannel(listener.accept(), stallTimeout);
            } catch (SocketTimeoutException e) {
                throw new PingPongException("no client connected to control port " + port + " within "
                        + stallTimeout.toSeconds() + " s");
            }
        }
    }

    /**
     * Client: connects to {@code host:port}, from {@code sourcePort} when it is not 0, retrying a refused connection
     * until the stall timeout so that the two sides may be started in either order.
     */
    static ControlChannel connect(String host, int port, int sourcePort, Duration stallTimeout) throws IOException {
        long deadline = System.nanoTime() + stallTimeout.toNanos();
        while (true) {
            Socket s = new Socket();
            try {
                if (sourcePort != 0) {
                    s.setReuseAddress(true);
                    s.bind(new InetSocketAddress(sourcePort));
                }
                s.connect(new InetSocketAddress(host, port), Math.toIntExact(stallTimeout.toMillis()));
                return new ControlChannel(s, stallTimeout);
            } catch (ConnectException e) {
                s.close();
                if (System.nanoTime() > deadline) {
                    throw new PingPongException("no server at " + host + ":" + port + " within "
                            + stallTimeout.toSeconds() + " s: " + e.getMessage());
                }
                sleep(Duration.ofMillis(100));
            } catch (IOException | RuntimeException e) {
                s.close();
                throw e;
            }
        }
    }

    /** Sends an endpoint name: length (big-endian), address format (little-endian, the raw C field), bytes. */
    void sendName(FabricName name) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(8 + name.bytes().length);
        b.order(ByteOrder.BIG_ENDIAN).putInt(name.bytes().length);
        b.order(ByteOrder.LITTLE_ENDIAN).putInt(name.addrFormat());
        b.put(name.bytes());
        out.write(b.array());
    }

    /** Receives the peer's endpoint name. */
    FabricName receiveName() throws IOException {
        int length = ByteBuffer.wrap(read(4)).order(ByteOrder.BIG_ENDIAN).getInt();
        if (length <= 0 || length > MAX_NAME_LENGTH) {
            throw new PingPongException("peer sent a name of " + Integer.toUnsignedString(length)
                    + " bytes; at most " + MAX_NAME_LENGTH + " are accepted");
        }
        int addrFormat = ByteBuffer.wrap(read(4)).order(ByteOrder.LITTLE_ENDIAN).getInt();
        return new FabricName(read(length), addrFormat);
    }

    /** Client side of the per-size sync: {@code q}, then wait for {@code a}. */
    void syncAsClient() throws IOException {
        out.write(SYNC_Q);
        expect(SYNC_A, 1, "sync answer");
    }

    /** Server side of the per-size sync: wait for {@code q}, answer {@code a}. */
    void syncAsServer() throws IOException {
        expect(SYNC_Q, 1, "sync request");
        out.write(SYNC_A);
    }

    /** Client: sends how many messages it received for this size, and waits for {@code cnt ok}. */
    void sendCount(long received) throws IOException {
        byte[] digits = Long.toString(received).getBytes(StandardCharsets.US_ASCII);
        out.write(Arrays.copyOf(digits, COUNT_LENGTH)); // NUL padded; snprintf truncates the same way
        expect(COUNT_OK, COUNT_OK.length - 1, "count acknowledgement");
    }

    /** Server: receives the client's count for this size and acknowledges it. */
    long receiveCount() throws IOException {
        byte[] raw = read(COUNT_LENGTH);
        int end = 0;
        while (end < raw.length && raw[end] != 0) {
            end++;
        }
        long count;
        try {
            count = Long.parseLong(new String(raw, 0, end, StandardCharsets.US_ASCII));
        } catch (NumberFormatException e) {
            throw new PingPongException("peer sent a malformed count " + Arrays.toString(raw));
        }
        out.write(COUNT_OK);
        return count;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }

    /** Reads {@code want.length} bytes and compares the first {@code significant} (fi_pingpong's strcmp). */
    private void expect(byte[] want, int significant, String what) throws IOException {
        byte[] got = read(want.length);
        if (!Arrays.equals(got, 0, significant, want, 0, significant)) {
            throw new PingPongException("bad " + what + " on the control channel: "
                    + new String(got, StandardCharsets.US_ASCII).replace('\0', ' ').strip());
        }
    }

    private byte[] read(int n) throws IOException {
        byte[] b = new byte[n];
        try {
            in.readFully(b);
        } catch (SocketTimeoutException e) {
            throw new PingPongException("the peer said nothing on the control channel for "
                    + stallTimeout.toSeconds() + " s");
        } catch (EOFException e) {
            throw new PingPongException("the peer closed the control channel");
        }
        return b;
    }

    private static void sleep(Duration d) throws IOException {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new java.io.InterruptedIOException("interrupted while connecting");
        }
    }
}
