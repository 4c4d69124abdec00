package dev.rivulet.rdma.verbs;

import dev.rivulet.core.error.HandshakeException;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;

/**
 * The bytes a verbs connection set-up exchanges besides core's handshake ({@code Handshake.KIND_FABRIC}, whose hello
 * carries {@link #service}): all big-endian, fixed size, checked before anything is done with them.
 *
 * <ul>
 *   <li><b>Service</b> (in the hello, before authentication): {@code u16 n | "verbs" | u32 messageSize |
 *       u8 connection} (0 rdma_cm, 1 manual). A listener with another message size or connection kind refuses the
 *       client at once; a libfabric listener refuses it as another provider.</li>
 *   <li><b>rdma_cm</b>: the listener's ACCEPT body is a {@link CmTicket}: 16 random bytes and the rdma_cm port it
 *       listens on. The client connects there with private data {@code "RVV1" | ticket} (20 of the 56 bytes a request
 *       may carry) and the listener accepts only a request with a ticket it handed out (once, within the set-up
 *       deadline), echoing it in its reply: the RDMA connection is the one the authenticated bootstrap connection set
 *       up.</li>
 *   <li><b>manual</b>: the client's parameters and the listener's ACCEPT body are each a {@link QpInfo}; each side
 *       moves its queue pair to RTR towards the other's and then to RTS.</li>
 * </ul>
 */
final class SetupMessages {

    static final int RDMACM = 0;
    static final int MANUAL = 1;

    private static final byte[] PROVIDER = "verbs".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MAGIC = "RVV1".getBytes(StandardCharsets.US_ASCII);
    private static final SecureRandom TICKETS = new SecureRandom();

    private SetupMessages() {
    }

    /** The hello's service parameters of a transport with {@code messageSize} and connection kind. */
    static byte[] service(int messageSize, int connection) {
        return ByteBuffer.allocate(2 + PROVIDER.length + 4 + 1).putShort((short) PROVIDER.length).put(PROVIDER)
                .putInt(messageSize).put((byte) connection).array();
    }

    /** Null when a client's service parameters match this listener's, else why not (sent to the client). */
    static String checkService(byte[] service, int messageSize, int connection) {
        if (Arrays.equals(service, service(messageSize, connection))) {
            return null;
        }
        return "this listener runs verbs with verbs.messageSize " + messageSize + " and verbs.connection "
                + (connection == MANUAL ? "manual" : "rdmacm");
    }

    /** One-time ticket tying an rdma_cm connection to its bootstrap connection, and where to present it. */
    record CmTicket(byte[] ticket, int cmPort) {

        static final int TICKET_BYTES = 16;
        static final int BYTES = TICKET_BYTES + 2;

        CmTicket {
            ticket = ticket.clone();
        }

        static CmTicket fresh(int cmPort) {
            byte[] t = new byte[TICKET_BYTES];
            TICKETS.nextBytes(t);
            return new CmTicket(t, cmPort);
        }

        byte[] encode() {
            return ByteBuffer.allocate(BYTES).put(ticket).putShort((short) cmPort).array();
        }

        static CmTicket decode(byte[] b) {
            if (b == null || b.length != BYTES) {
                throw new HandshakeException("rdma_cm ticket of " + (b == null ? 0 : b.length) + " bytes, expected "
                        + BYTES);
            }
            ByteBuffer in = ByteBuffer.wrap(b);
            byte[] t = new byte[TICKET_BYTES];
            in.get(t);
            int port = Short.toUnsignedInt(in.getShort());
            if (port == 0) {
                throw new HandshakeException("rdma_cm ticket names port 0");
            }
            return new CmTicket(t, port);
        }

        @Override
        public byte[] ticket() {
            return ticket.clone();
        }

        /** The private data of the connection request (and of the reply, which echoes it). */
        byte[] privateData() {
            return ByteBuffer.allocate(MAGIC.length + TICKET_BYTES).put(MAGIC).put(ticket).array();
        }

        /** Whether {@code privateData} presents this ticket (constant time in the ticket bytes). */
        boolean presentedIn(byte[] privateData) {
            byte[] t = ticketIn(privateData);
            return t != null && MessageDigest.isEqual(t, ticket);
        }

        /** The ticket a request's private data presents, or null when it is not ours in form. */
        static byte[] ticketIn(byte[] privateData) {
            // Requests may arrive zero-padded to the transport's private data size.
            if (privateData == null || privateData.length < MAGIC.length + TICKET_BYTES
                    || !Arrays.equals(privateData, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
                return null;
            }
            return Arrays.copyOfRange(privateData, MAGIC.length, MAGIC.length + TICKET_BYTES);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof CmTicket c && c.cmPort == cmPort && Arrays.equals(c.ticket, ticket);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(ticket) * 31 + cmPort;
        }

        @Override
        public String toString() {
            return "CmTicket[port=" + cmPort + "]";
        }
    }

    /**
     * What a peer needs to move its queue pair to RTR towards ours ({@code manual} connections): our queue pair number
     * and first packet sequence number (24 bits each), our port's LID (InfiniBand) and the GID we send from (RoCE or
     * routed InfiniBand; all zero when none is used), the port's active MTU ({@code IBV_MTU_*}), and how many reads and
     * atomics we serve at once ({@code max_qp_rd_atom}, bounding the peer's initiator depth).
     */
    record QpInfo(int qpn, int psn, int lid, byte[] gid, int mtu, int responderResources) {

        static final int BYTES = 4 + 4 + 2 + 16 + 1 + 1;

        QpInfo {
            gid = gid.clone();
            if (gid.length != 16) {
                throw new IllegalArgumentException("a GID has 16 bytes");
            }
        }

        @Override
        public byte[] gid() {
            return gid.clone();
        }

        /** Whether a GID was sent (the peer must then route to it with a global route header). */
        boolean hasGid() {
            for (byte b : gid) {
                if (b != 0) {
                    return true;
                }
            }
            return false;
        }

        byte[] encode() {
            return ByteBuffer.allocate(BYTES).putInt(qpn).putInt(psn).putShort((short) lid).put(gid)
                    .put((byte) mtu).put((byte) responderResources).array();
        }

        static QpInfo decode(byte[] b) {
            if (b == null || b.length != BYTES) {
                throw new HandshakeException("queue pair description of " + (b == null ? 0 : b.length)
                        + " bytes, expected " + BYTES);
            }
            ByteBuffer in = ByteBuffer.wrap(b);
            int qpn = in.getInt();
            int psn = in.getInt();
            int lid = Short.toUnsignedInt(in.getShort());
            byte[] gid = new byte[16];
            in.get(gid);
            int mtu = Byte.toUnsignedInt(in.get());
            int rd = Byte.toUnsignedInt(in.get());
            if ((qpn & ~0xFFFFFF) != 0 || (psn & ~0xFFFFFF) != 0) {
                throw new HandshakeException("queue pair number or PSN wider than 24 bits");
            }
            if (mtu < 1 || mtu > 5) {
                throw new HandshakeException("path MTU code " + mtu + " is not IBV_MTU_256..IBV_MTU_4096");
            }
            return new QpInfo(qpn, psn, lid, gid, mtu, rd);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof QpInfo q && q.qpn == qpn && q.psn == psn && q.lid == lid && Arrays.equals(q.gid, gid)
                    && q.mtu == mtu && q.responderResources == responderResources;
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(gid) * 31 + qpn;
        }
    }

    /** A random 24-bit first packet sequence number. */
    static int randomPsn() {
        return TICKETS.nextInt() & 0xFFFFFF;
    }
}
