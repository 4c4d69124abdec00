package dev.rivulet.rdma.fabric;

import dev.rivulet.core.error.HandshakeException;
import dev.rivulet.core.engine.LivenessMonitor;
import dev.rivulet.core.liveness.LivenessSettings;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The out-of-band channel that connects two libfabric endpoints: a TCP connection (TLS where configured) that runs
 * core's connection handshake ({@code Handshake.KIND_FABRIC}) and then stays open as the connection's liveness
 * channel. See {@code docs/fabric-transport.md}.
 *
 * <ul>
 *   <li>Hello service parameters: {@code u16 n | provider (UTF-8) | u32 eager size}: a listener of another provider
 *       or eager size refuses the client before anything else.</li>
 *   <li>Once authenticated, the client sends its endpoint name ({@code fi_getname}) and the listener answers with
 *       its own: names reach only a peer that proved itself. Each side checks the other's name before it goes into
 *       the address vector ({@link #checkName}).</li>
 *   <li>Each side has the other in its address vector before the other may send: the listener inserts the client's
 *       name before it answers, and the client, once it inserted the listener's, sends {@link #READY}, which the
 *       listener waits for (within the set-up deadline) before its endpoint sends anything. Completions report
 *       their sender ({@code FI_SOURCE}) and a message from anyone but the peer is dropped; the sockets provider
 *       keeps reporting a message that arrived before its sender was inserted as coming from nobody, so without
 *       this order the peer's first messages could be dropped as a stranger's.</li>
 *   <li>Afterwards single bytes: {@link #HEARTBEAT} (answered by {@link #HEARTBEAT_ACK}) when this side sent nothing
 *       for a heartbeat interval, and {@link #GOODBYE} before a graceful close. Nothing heard for the peer timeout, end
 *       of stream without a goodbye, or any other byte means the peer is gone.</li>
 * </ul>
 */
final class Bootstrap {

    static final int GOODBYE = 0x01;
    static final int HEARTBEAT = 0x02;
    static final int HEARTBEAT_ACK = 0x03;
    /** Client → listener, once, right after the handshake: the listener's endpoint is in the client's AV. */
    static final int READY = 0x04;

    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    private static final int SOCKADDR_IN = 16;
    private static final int SOCKADDR_IN6 = 28;
    private static final int MAX_STRING_NAME = 128;

    private Bootstrap() {
    }

    /** The hello's service parameters of a transport running {@code provider} with {@code eagerSize}. */
    static byte[] service(String provider, int eagerSize) {
        byte[] p = provider.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + p.length + 4).putShort((short) p.length).put(p).putInt(eagerSize).array();
    }

    /** Null when a client's service parameters match this transport's, else why not. */
    static String checkService(byte[] service, String provider, int eagerSize) {
        if (Arrays.equals(service, service(provider, eagerSize))) {
            return null;
        }
        return "this listener runs provider " + provider + " with fabric.eagerSize " + eagerSize;
    }

    /**
     * Checks an endpoint name a peer sent before it may go into the address vector: the exact form of this
     * provider's address format ({@code ourName} is one of ours), and, for IP addresses when {@code checkAddress},
     * that it names the host the bootstrap connection came from (or, over loopback, an address of this host). A
     * peer must not make us insert, and so connect to, anybody else.
     *
     * @throws HandshakeException when the name is not acceptable
     */
    static void checkName(byte[] name, byte[] ourName, int addrFormat, InetAddress from, boolean checkAddress,
                          String provider) {
        if (name.length == 0) {
            throw new HandshakeException("empty endpoint name");
        }
        switch (addrFormat) {
            case dev.rivulet.rdma.libfabric.FiConstants.FI_SOCKADDR,
                 dev.rivulet.rdma.libfabric.FiConstants.FI_SOCKADDR_IN,
                 dev.rivulet.rdma.libfabric.FiConstants.FI_SOCKADDR_IN6 -> checkSockaddr(name, from, checkAddress);
            case dev.rivulet.rdma.libfabric.FiConstants.FI_ADDR_STR -> checkStringName(name, ourName, from, provider);
            default -> {
                if (name.length != ourName.length) {
                    throw new HandshakeException("endpoint name of " + name.length + " bytes; " + provider
                            + " names are " + ourName.length);
                }
            }
        }
    }

    private static void checkSockaddr(byte[] name, InetAddress from, boolean checkAddress) {
        if (name.length < 2) {
            throw new HandshakeException("endpoint name of " + name.length + " bytes is no socket address");
        }
        int family = (name[0] & 0xFF) | (name[1] & 0xFF) << 8; // sa_family_t, host order (little-endian here)
        int expected = family == AF_INET ? SOCKADDR_IN : family == AF_INET6 ? SOCKADDR_IN6 : -1;
        if (expected < 0) {
            throw new HandshakeException("endpoint name has address family " + family + ", not IPv4 or IPv6");
        }
        if (name.length != expected) {
            throw new HandshakeException("endpoint name of " + name.length + " bytes for address family " + family
                    + " (expected " + expected + ")");
        }
        int port = (name[2] & 0xFF) << 8 | (name[3] & 0xFF);
        if (port == 0) {
            throw new HandshakeException("endpoint name has port 0");
        }
        InetAddress ip;
        try {
            ip = InetAddress.getByAddress(family == AF_INET ? Arrays.copyOfRange(name, 4, 8)
                    : Arrays.copyOfRange(name, 8, 24));
        } catch (UnknownHostException e) {
            throw new HandshakeException("endpoint name holds no IP address", e);
        }
        if (ip.isAnyLocalAddress() || ip.isMulticastAddress()) {
            throw new HandshakeException("endpoint name names " + ip.getHostAddress() + ", not a host");
        }
        if (checkAddress && !ip.equals(from) && !(from.isLoopbackAddress() && isLocal(ip))) {
            throw new HandshakeException("endpoint name names " + ip.getHostAddress() + " but the connection came "
                    + "from " + from.getHostAddress() + " (set security.peerAddressCheck=false where fabric and "
                    + "bootstrap addresses differ)");
        }
    }

    /**
     * shm names its endpoints {@code fi_shm://<pid>:<uid>:<index>}, NUL-terminated: a peer on this host only, so the
     * bootstrap connection must come over loopback.
     */
    private static void checkStringName(byte[] name, byte[] ourName, InetAddress from, String provider) {
        if (name.length > MAX_STRING_NAME || name[name.length - 1] != 0) {
            throw new HandshakeException("endpoint name is not a NUL-terminated string of at most "
                    + MAX_STRING_NAME + " bytes");
        }
        String s = new String(name, 0, name.length - 1, StandardCharsets.US_ASCII);
        String ours = new String(ourName, 0, Math.max(0, ourName.length - 1), StandardCharsets.US_ASCII);
        int colon = ours.indexOf("://");
        String scheme = colon < 0 ? "" : ours.substring(0, colon + 3);
        if (!s.startsWith(scheme) || !s.substring(scheme.length()).matches("[0-9]{1,10}(:[0-9]{1,10}){1,4}")) {
            throw new HandshakeException("endpoint name is not a " + provider + " address");
        }
        if (!from.isLoopbackAddress() && !isLocal(from)) {
            throw new HandshakeException(provider + " reaches processes of this host only; the connection came "
                    + "from " + from.getHostAddress());
        }
    }

    private static boolean isLocal(InetAddress ip) {
        if (ip.isLoopbackAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(ip) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    /** Keeps the peer informed and watches it, on a virtual thread, until either side closes. */
    static final class Channel {
        private final Socket socket;
        private final OutputStream out;
        private final Object writeLock = new Object();
        private volatile boolean closing;

        Channel(Socket socket) throws IOException {
            this.socket = socket;
            this.out = socket.getOutputStream();
        }

        /**
         * Starts watching: a heartbeat when this side sent nothing for a heartbeat interval, {@code wire.peerGone} on
         * a goodbye (graceful), an end of stream, an error or silence for the peer timeout.
         */
        void watch(FabricWire wire, LivenessSettings liveness) {
            Thread.ofVirtual().name("rivulet-fabric-liveness").start(() -> run(wire, liveness));
        }

        private void run(FabricWire wire, LivenessSettings liveness) {
            LivenessMonitor monitor = new LivenessMonitor(liveness, System.nanoTime());
            long tick = Math.max(10, liveness.heartbeatInterval().toMillis() / 4);
            String reason = null;
            boolean graceful = false;
            try {
                InputStream in = socket.getInputStream();
                socket.setSoTimeout((int) Math.min(Integer.MAX_VALUE, tick));
                loop:
                while (!closing) {
                    try {
                        int b = in.read();
                        monitor.heard();
                        switch (b) {
                            case -1 -> {
                                reason = "bootstrap connection ended without a goodbye";
                                break loop;
                            }
                            case GOODBYE -> {
                                graceful = true;
                                break loop;
                            }
                            case HEARTBEAT -> {
                                send(HEARTBEAT_ACK);
                                monitor.sent();
                            }
                            case HEARTBEAT_ACK -> { }
                            default -> {
                                reason = "peer broke the bootstrap protocol (byte 0x" + Integer.toHexString(b) + ")";
                                break loop;
                            }
                        }
                    } catch (SocketTimeoutException quiet) {
                        // nothing arrived this tick: see below
                    }
                    switch (monitor.check(System.nanoTime())) {
                        case LivenessMonitor.SEND_HEARTBEAT -> send(HEARTBEAT); // quiet for an interval
                        case LivenessMonitor.PEER_TIMEOUT -> {
                            reason = "no sign of life from the peer for " + liveness.peerTimeout()
                                    + " (liveness.peerTimeout)";
                            break loop;
                        }
                        default -> { }
                    }
                }
            } catch (IOException e) {
                reason = "bootstrap connection failed: " + e.getMessage();
            }
            if (!closing) {
                wire.peerGone(graceful, reason);
            }
            closeQuietly(socket);
        }

        private void send(int b) throws IOException {
            synchronized (writeLock) {
                out.write(b);
                out.flush();
            }
        }

        /** Says goodbye (best effort) and closes. */
        void goodbye() {
            closing = true;
            try {
                send(GOODBYE);
            } catch (IOException e) {
                // the peer is gone already
            }
            closeQuietly(socket);
        }

        /** Closes without a goodbye: the peer broke the protocol, or we did not finish setting up. */
        void abort() {
            closing = true;
            closeQuietly(socket);
        }
    }

    /** The client's side of the set-up's last step (before anything else is written on the socket). */
    static void sendReady(Socket s) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(READY);
        out.flush();
    }

    /** The listener's side: waits, until {@code deadline} ({@link System#nanoTime()}), for the client's READY. */
    static void awaitReady(Socket s, long deadline) throws IOException {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
            throw new SocketTimeoutException("set-up deadline passed before the client was ready");
        }
        s.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, left / 1_000_000)));
        int b = s.getInputStream().read();
        if (b != READY) {
            throw new HandshakeException("expected READY from the client, got " + (b < 0 ? "end of stream"
                    : "byte 0x" + Integer.toHexString(b)));
        }
    }

    static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // nothing left to do
        }
    }
}
