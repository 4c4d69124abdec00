package dev.rivulet.rdma.bootstrap;

import dev.rivulet.core.engine.LivenessMonitor;
import dev.rivulet.core.error.HandshakeException;
import dev.rivulet.core.liveness.LivenessSettings;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * The bootstrap connection once an RDMA connection is set up: the TCP connection (TLS where configured) that ran
 * core's handshake stays open beside the RDMA connection as its liveness channel. An RDMA connection notices a dead
 * peer only when an operation exhausts its retries, and an idle one never; this channel notices within the peer
 * timeout, and tells a graceful close (a goodbye byte) from a vanished peer. The libfabric and the ibverbs transport
 * speak the same bytes on it.
 *
 * <p>During set-up, one side says {@link #READY} ({@link #sendReady}) as its last step and the other waits for it
 * ({@link #awaitReady}) before it goes on: the ibverbs client once its queue pair can take the listener's messages;
 * the libfabric listener once the client's fabric hello arrived. Afterwards single bytes:
 * {@link #HEARTBEAT} when this side sent nothing for a heartbeat interval (answered with {@link #HEARTBEAT_ACK}),
 * {@link #GOODBYE} before a graceful close, followed by how many messages this side's sends delivered to the peer's
 * receives (8 bytes, big-endian; -1 when it does not count them). The goodbye travels on this connection and the
 * messages on the fabric's, so the goodbye may overtake the last of them: the peer takes the close only once it has
 * received that many. End of stream without a goodbye, any other byte, or silence for the peer timeout means the peer
 * is gone.
 */
public final class LivenessChannel {

    static final int GOODBYE = 0x01;
    static final int HEARTBEAT = 0x02;
    static final int HEARTBEAT_ACK = 0x03;
    /** Once, as the set-up's last step: the side waiting for it may go on (see the class comment). */
    static final int READY = 0x04;

    /** What the channel tells the connection it watches. */
    public interface Listener {
        /**
         * The peer closed gracefully ({@code graceful}, after its sends delivered {@code messagesSent} messages to
         * this side's receives, or -1 when it did not count them) or is gone ({@code reason}); on the channel's
         * thread.
         */
        void peerGone(boolean graceful, long messagesSent, String reason);
    }

    private final Socket socket;
    private final OutputStream out;
    private final Object writeLock = new Object();
    private volatile boolean closing;
    /** See {@link #caughtUpTo}: the start of the latest read that found nothing for a whole tick. */
    private volatile long caughtUpTo = System.nanoTime(); // what came before, the set-up read

    public LivenessChannel(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
    }

    /**
     * Starts watching the peer on a virtual thread named {@code threadName} until either side closes: a heartbeat
     * when this side sent nothing for a heartbeat interval, {@code listener.peerGone} on a goodbye (graceful), an end
     * of stream, an error or silence for the peer timeout. Not called once this side closed first.
     */
    public void watch(Listener listener, LivenessSettings liveness, String threadName) {
        Thread.ofVirtual().name(threadName).start(() -> run(listener, liveness));
    }

    private void run(Listener listener, LivenessSettings liveness) {
        LivenessMonitor monitor = new LivenessMonitor(liveness, System.nanoTime());
        long tick = Math.max(10, liveness.heartbeatInterval().toMillis() / 4);
        String reason = null;
        boolean graceful = false;
        long messagesSent = -1;
        try {
            InputStream in = socket.getInputStream();
            socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, tick));
            while (!closing && reason == null && !graceful) {
                long readFrom = System.nanoTime();
                try {
                    int b = in.read();
                    monitor.heard();
                    switch (b) {
                        case -1 -> reason = "bootstrap connection ended without a goodbye";
                        case GOODBYE -> {
                            graceful = true;
                            messagesSent = readCount(in);
                        }
                        case HEARTBEAT -> {
                            send(HEARTBEAT_ACK);
                            monitor.sent();
                        }
                        case HEARTBEAT_ACK -> { }
                        default -> reason = "peer broke the bootstrap protocol (byte 0x" + Integer.toHexString(b)
                                + ")";
                    }
                } catch (SocketTimeoutException quiet) {
                    caughtUpTo = readFrom; // nothing arrived this tick: the monitor decides below
                }
                if (reason == null && !graceful) {
                    switch (monitor.check(System.nanoTime())) {
                        case LivenessMonitor.SEND_HEARTBEAT -> send(HEARTBEAT); // quiet for an interval
                        case LivenessMonitor.PEER_TIMEOUT -> reason = "no sign of life from the peer for "
                                + liveness.peerTimeout() + " (liveness.peerTimeout)";
                        default -> { }
                    }
                }
            }
        } catch (IOException e) {
            reason = "bootstrap connection failed: " + e.getMessage();
        }
        if (!closing) {
            listener.peerGone(graceful, messagesSent, reason);
        }
        BootstrapSockets.closeQuietly(socket);
    }

    /**
     * A {@link System#nanoTime} moment such that everything the peer's side wrote on this channel before it, a
     * goodbye included, has been handled (the channel's creation before its first quiet tick). Lags the clock by up
     * to two ticks (a quarter of the heartbeat interval each); unlike the clock, it stands still while this
     * channel's thread cannot run, so what waits on it does not give up on a goodbye that is there but unread.
     * Any thread.
     */
    public long caughtUpTo() {
        return caughtUpTo;
    }

    private void send(int b) throws IOException {
        synchronized (writeLock) {
            out.write(b);
            out.flush();
        }
    }

    /** The count after a goodbye; -1 when the peer ended the connection before it was whole. */
    private static long readCount(InputStream in) throws IOException {
        long n = 0;
        for (int i = 0; i < 8; i++) {
            int b;
            try {
                b = in.read();
            } catch (SocketTimeoutException slow) {
                b = in.read(); // the rest of the goodbye is on its way: one tick more
            }
            if (b < 0) {
                return -1;
            }
            n = n << 8 | b;
        }
        return n;
    }

    /**
     * Says goodbye (best effort) and closes: an orderly close, after this side's sends delivered {@code messagesSent}
     * messages to the peer's receives (-1: not counted; the peer then takes the close as soon as it hears it).
     */
    public void goodbye(long messagesSent) {
        closing = true;
        byte[] b = new byte[9];
        b[0] = GOODBYE;
        for (int i = 0; i < 8; i++) {
            b[1 + i] = (byte) (messagesSent >>> (56 - 8 * i));
        }
        try {
            synchronized (writeLock) {
                out.write(b);
                out.flush();
            }
        } catch (IOException e) {
            // the peer is gone already
        }
        BootstrapSockets.closeQuietly(socket);
    }

    /** Closes without a goodbye: the peer sees a failure (the connection broke, or set-up did not finish). */
    public void abort() {
        closing = true;
        BootstrapSockets.closeQuietly(socket);
    }

    /** The set-up's last step, before anything else is written on the socket. */
    public static void sendReady(Socket s) throws IOException {
        OutputStream o = s.getOutputStream();
        o.write(READY);
        o.flush();
    }

    /**
     * A look for {@link #sendReady} that does not wait: 1 when it came, 0 when nothing came yet, -1 when the other
     * side ended the connection or sent anything else (it gave the set-up up).
     */
    public static int pollReady(Socket s) throws IOException {
        s.setSoTimeout(1);
        try {
            return s.getInputStream().read() == READY ? 1 : -1;
        } catch (SocketTimeoutException quiet) {
            return 0;
        }
    }

    /** The other side of {@link #sendReady}: waits for it until {@code deadline} ({@link System#nanoTime()}). */
    public static void awaitReady(Socket s, long deadline) throws IOException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new SocketTimeoutException("set-up deadline passed before the client was ready");
        }
        s.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, left / 1_000_000)));
        int b = s.getInputStream().read();
        if (b != READY) {
            throw new HandshakeException("expected READY from the peer, got " + (b < 0 ? "end of stream"
                    : "byte 0x" + Integer.toHexString(b)));
        }
    }
}
