package dev.rivulet.rio.shm;

import dev.rivulet.core.error.HandshakeException;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * What the two sides tell each other in the handshake's parameters, after the hello and the secret's proof.
 *
 * <pre>
 *  dialling side:  pid | max message | max requests | ring bytes | pool bytes | canary address | canary (16)
 *  accepting side: pid | max message | max requests | layout (4 ints) | file bytes | reaches peer (1) |
 *                  canary address | canary (16) | file name (u16 length, ASCII)
 * </pre>
 *
 * The canary is 16 random bytes each side keeps at a fixed address; the other side reads it with
 * {@code process_vm_readv} to learn whether it may copy across at all, and whether the pid it was told is the
 * process at the other end. Anything malformed is a {@link HandshakeException}.
 */
final class SetUpParams {

    static final int CANARY_BYTES = 16;
    /** What the dialling side writes after it mapped the file: magic, then whether it reaches the acceptor. */
    static final int READY_MAGIC = 0x52445931; // "RDY1"
    static final int READY_BYTES = 8;

    private SetUpParams() {
    }

    record Dialling(long pid, int maxMessage, int maxRequests, int ringBytes, int poolBytes, long canaryAddress,
                    byte[] canary) {

        byte[] encode() {
            ByteBuffer b = ByteBuffer.allocate(8 + 4 * 4 + 8 + CANARY_BYTES);
            b.putLong(pid).putInt(maxMessage).putInt(maxRequests).putInt(ringBytes).putInt(poolBytes)
                    .putLong(canaryAddress).put(canary);
            return b.array();
        }

        static Dialling decode(byte[] bytes) {
            try {
                ByteBuffer b = ByteBuffer.wrap(bytes);
                long pid = b.getLong();
                int maxMessage = b.getInt();
                int maxRequests = b.getInt();
                int ring = b.getInt();
                int pool = b.getInt();
                long canaryAddress = b.getLong();
                byte[] canary = new byte[CANARY_BYTES];
                b.get(canary);
                if (b.hasRemaining()) {
                    throw new HandshakeException("trailing bytes in the peer's shared-memory parameters");
                }
                checkCommon(pid, maxMessage, maxRequests);
                checkSizes(ring, pool);
                return new Dialling(pid, maxMessage, maxRequests, ring, pool, canaryAddress, canary);
            } catch (BufferUnderflowException e) {
                throw new HandshakeException("truncated shared-memory parameters", e);
            }
        }
    }

    record Accepting(long pid, int maxMessage, int maxRequests, ConnectionLayout layout, long fileBytes,
                     boolean reachesPeer, long canaryAddress, byte[] canary, String fileName) {

        byte[] encode() {
            byte[] name = fileName.getBytes(StandardCharsets.US_ASCII);
            ByteBuffer b = ByteBuffer.allocate(8 + 4 + 4 + 16 + 8 + 1 + 8 + CANARY_BYTES + 2 + name.length);
            b.putLong(pid).putInt(maxMessage).putInt(maxRequests);
            layout.encode(b);
            b.putLong(fileBytes).put((byte) (reachesPeer ? 1 : 0)).putLong(canaryAddress).put(canary)
                    .putShort((short) name.length).put(name);
            return b.array();
        }

        static Accepting decode(byte[] bytes) {
            try {
                ByteBuffer b = ByteBuffer.wrap(bytes);
                long pid = b.getLong();
                int maxMessage = b.getInt();
                int maxRequests = b.getInt();
                ConnectionLayout layout;
                try {
                    layout = ConnectionLayout.decode(b);
                } catch (IllegalArgumentException e) {
                    throw new HandshakeException("peer proposed a layout that is not one: " + e.getMessage());
                }
                long fileBytes = b.getLong();
                boolean reaches = b.get() != 0;
                long canaryAddress = b.getLong();
                byte[] canary = new byte[CANARY_BYTES];
                b.get(canary);
                int n = b.getShort() & 0xFFFF;
                byte[] name = new byte[n];
                b.get(name);
                if (b.hasRemaining()) {
                    throw new HandshakeException("trailing bytes in the peer's shared-memory parameters");
                }
                checkCommon(pid, maxMessage, maxRequests);
                checkSizes(layout.ring0(), layout.pool0());
                checkSizes(layout.ring1(), layout.pool1());
                String fileName = new String(name, StandardCharsets.US_ASCII);
                if (!ShmFiles.isName(fileName) || ShmFiles.creatorOf(fileName) != pid
                        || fileBytes != layout.totalBytes()) {
                    throw new HandshakeException("peer named shared file '" + fileName + "' of " + fileBytes
                            + " bytes, which is not one it could have made for this connection");
                }
                return new Accepting(pid, maxMessage, maxRequests, layout, fileBytes, reaches, canaryAddress, canary,
                        fileName);
            } catch (BufferUnderflowException e) {
                throw new HandshakeException("truncated shared-memory parameters", e);
            }
        }
    }

    private static void checkCommon(long pid, int maxMessage, int maxRequests) {
        if (pid <= 0 || pid > Integer.MAX_VALUE || maxMessage < 1 || maxRequests < 1 || maxRequests > 1 << 16) {
            throw new HandshakeException("peer's shared-memory parameters are out of range (pid " + pid
                    + ", max message " + maxMessage + ", max requests " + maxRequests + ")");
        }
    }

    /** The same bounds the options have: a peer cannot make this side map more than it could configure. */
    private static void checkSizes(int ring, int pool) {
        if (Integer.bitCount(ring) != 1 || ring < 16 << 10 || ring > 64 << 20 || Integer.bitCount(pool) != 1
                || pool < 64 << 10 || pool > 1 << 30) {
            throw new HandshakeException("peer's ring (" + ring + ") or pool (" + pool + ") size is not allowed");
        }
    }
}
