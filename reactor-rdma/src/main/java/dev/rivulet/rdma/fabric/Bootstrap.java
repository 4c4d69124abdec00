package dev.rivulet.rdma.fabric;

import dev.rivulet.core.error.HandshakeException;
import dev.rivulet.rdma.bootstrap.BootstrapSockets;
import dev.rivulet.rdma.bootstrap.LivenessChannel;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * What the libfabric transport exchanges on its bootstrap connection: a TCP connection (TLS where configured,
 * {@link BootstrapSockets}) that runs core's connection handshake ({@code Handshake.KIND_FABRIC}) and then stays open
 * as the connection's {@link LivenessChannel}. See {@code docs/fabric-transport.md}.
 *
 * <ul>
 *   <li>Hello service parameters: {@code u16 n | provider (UTF-8) | u32 eager size | u8 set-up version}: a listener
 *       of another provider, eager size or set-up protocol refuses the client before anything else.</li>
 *   <li>Once authenticated, the client sends its endpoint name ({@code fi_getname}). The listener checks it
 *       ({@link #checkName}) before it opens anything for the client, then opens an endpoint, inserts the name into
 *       its address vector and answers with its own name and a fresh token ({@link FabricHello#answer}): names reach
 *       only a peer that proved itself. The client checks the listener's name the same way.</li>
 *   <li>The client connects first: it inserts the listener's name and sends the token over its RDM endpoint
 *       ({@link FabricHello}). The listener's endpoint sends nothing, and so its provider dials nobody, until that
 *       token arrived from the address the client named; then the listener says {@link LivenessChannel#sendReady
 *       READY} on the bootstrap connection, which the client waits for, and both endpoints start. A client whose
 *       hello does not arrive within the set-up deadline is dropped. Completions report their sender
 *       ({@code FI_SOURCE}) and a message from anyone but the peer is dropped; each side inserts the other before
 *       the other can send to it, so no first message is taken for a stranger's.</li>
 *   <li>Afterwards the {@link LivenessChannel}'s heartbeats and goodbye.</li>
 * </ul>
 */
final class Bootstrap {

    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    private static final int SOCKADDR_IN = 16;
    private static final int SOCKADDR_IN6 = 28;
    private static final int MAX_STRING_NAME = 128;
    /** The set-up protocol: 2 is the client-first fabric hello ({@link FabricHello}). */
    static final int SETUP_VERSION = 2;

    private Bootstrap() {
    }

    /** The hello's service parameters of a transport running {@code provider} with {@code eagerSize}. */
    static byte[] service(String provider, int eagerSize) {
        byte[] p = provider.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(2 + p.length + 4 + 1).putShort((short) p.length).put(p).putInt(eagerSize)
                .put((byte) SETUP_VERSION).array();
    }

    /** Null when a client's service parameters match this transport's, else why not. */
    static String checkService(byte[] service, String provider, int eagerSize) {
        if (Arrays.equals(service, service(provider, eagerSize))) {
            return null;
        }
        return "this listener runs provider " + provider + " with fabric.eagerSize " + eagerSize + " and set-up "
                + "protocol " + SETUP_VERSION;
    }

    /**
     * Checks an endpoint name a peer sent before anything is opened for it or it goes into the address vector: the
     * exact form of this provider's address format ({@code ourName} is one of ours), and, for IP addresses when
     * {@code checkAddress}, whom it names: the host the bootstrap connection came from ({@code from}); a peer that
     * came over loopback may name only a loopback address, the address it connected to ({@code to}) or this
     * domain's own fabric address (where a provider binds by default, so a local peer's name holds it too), not
     * any other address of this host. A peer must not make us insert, and so possibly reach, anybody else.
     *
     * @throws HandshakeException when the name is not acceptable
     */
    static void checkName(byte[] name, byte[] ourName, int addrFormat, InetAddress from, InetAddress to,
                          boolean checkAddress, String provider) {
        if (name.length == 0) {
            throw new HandshakeException("empty endpoint name");
        }
        switch (addrFormat) {
            case dev.rivulet.rdma.fabric.sys.FiConstants.FI_SOCKADDR,
                 dev.rivulet.rdma.fabric.sys.FiConstants.FI_SOCKADDR_IN,
                 dev.rivulet.rdma.fabric.sys.FiConstants.FI_SOCKADDR_IN6 ->
                    checkSockaddr(name, from, to, ipOf(ourName), checkAddress);
            case dev.rivulet.rdma.fabric.sys.FiConstants.FI_ADDR_STR -> checkStringName(name, ourName, from, provider);
            default -> {
                if (name.length != ourName.length) {
                    throw new HandshakeException("endpoint name of " + name.length + " bytes; " + provider
                            + " names are " + ourName.length);
                }
            }
        }
    }

    /** The IP address of a socket-address endpoint name of ours, or null when it holds none. */
    private static InetAddress ipOf(byte[] ourName) {
        try {
            return ipOf(ourName, familyOf(ourName));
        } catch (HandshakeException e) {
            return null;
        }
    }

    private static int familyOf(byte[] name) {
        if (name.length < 2) {
            throw new HandshakeException("endpoint name of " + name.length + " bytes is no socket address");
        }
        return (name[0] & 0xFF) | (name[1] & 0xFF) << 8; // sa_family_t, host order (little-endian here)
    }

    /** The address in a socket-address name of {@code family}, whose size was checked. */
    private static InetAddress ipOf(byte[] name, int family) {
        int expected = family == AF_INET ? SOCKADDR_IN : family == AF_INET6 ? SOCKADDR_IN6 : -1;
        if (expected < 0) {
            throw new HandshakeException("endpoint name has address family " + family + ", not IPv4 or IPv6");
        }
        if (name.length != expected) {
            throw new HandshakeException("endpoint name of " + name.length + " bytes for address family " + family
                    + " (expected " + expected + ")");
        }
        try {
            return InetAddress.getByAddress(family == AF_INET ? Arrays.copyOfRange(name, 4, 8)
                    : Arrays.copyOfRange(name, 8, 24));
        } catch (UnknownHostException e) {
            throw new HandshakeException("endpoint name holds no IP address", e);
        }
    }

    private static void checkSockaddr(byte[] name, InetAddress from, InetAddress to, InetAddress own,
                                      boolean checkAddress) {
        InetAddress ip = ipOf(name, familyOf(name));
        int port = (name[2] & 0xFF) << 8 | (name[3] & 0xFF);
        if (port == 0) {
            throw new HandshakeException("endpoint name has port 0");
        }
        if (ip.isAnyLocalAddress() || ip.isMulticastAddress()) {
            throw new HandshakeException("endpoint name names " + ip.getHostAddress() + ", not a host");
        }
        if (!checkAddress || ip.equals(from)) {
            return;
        }
        if (from.isLoopbackAddress()) {
            if (ip.isLoopbackAddress() || ip.equals(to) || ip.equals(own)) {
                return;
            }
            throw new HandshakeException("endpoint name names " + ip.getHostAddress() + " but the connection came "
                    + "over loopback: a local peer may name a loopback address, " + to.getHostAddress()
                    + (own == null ? "" : " or " + own.getHostAddress()) + " (set security.peerAddressCheck=false "
                    + "where fabric and bootstrap addresses differ)");
        }
        throw new HandshakeException("endpoint name names " + ip.getHostAddress() + " but the connection came "
                + "from " + from.getHostAddress() + " (set security.peerAddressCheck=false where fabric and "
                + "bootstrap addresses differ)");
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
}
