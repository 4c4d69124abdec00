package dev.rivulet.core.handshake;

import dev.rivulet.core.error.HandshakeException;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The messages of the connection handshake and their byte form (big-endian). Every message is framed as
 * {@code u8 type | u16 length | body}, bodies at most {@link #MAX_BODY} bytes, so a reader never allocates more than
 * that for a peer it does not know yet. Decoders accept exactly the documented form and throw
 * {@link HandshakeException} for anything else: unknown types, bad magic, short or trailing bytes.
 *
 * <pre>
 * CLIENT_HELLO  u32 magic "RVLT" | u16 min version | u16 max version | u8 transport kind | u8 flags (bit 0: the
 *               client proves a shared secret) | 32-byte nonce | u16 n | n bytes of service parameters
 * SERVER_HELLO  u32 magic | u16 version | u8 flags (bit 0: the server requires and proves a shared secret)
 *               | 32-byte nonce
 * CLIENT_PROOF  32-byte HMAC-SHA256(secret, "RVLT/1 client proof" | SHA-256(transcript so far))
 * SERVER_PROOF  32-byte HMAC-SHA256(secret, "RVLT/1 server proof" | SHA-256(transcript so far))
 * CLIENT_PARAMS the transport's connection parameters (e.g. a libfabric endpoint name)
 * ACCEPT        the transport's answer to them
 * REFUSE        u8 code | UTF-8 reason (at most 512 bytes)
 * </pre>
 */
public final class HandshakeMessages {

    public static final int MAGIC = 0x52564c54; // "RVLT"
    public static final int MAX_BODY = 4096;
    public static final int HEADER = 3;
    public static final int NONCE_BYTES = 32;
    public static final int MAC_BYTES = 32;
    public static final int MAX_REASON = 512;

    public static final int CLIENT_HELLO = 1;
    public static final int SERVER_HELLO = 2;
    public static final int CLIENT_PROOF = 3;
    public static final int SERVER_PROOF = 4;
    public static final int CLIENT_PARAMS = 5;
    public static final int ACCEPT = 6;
    public static final int REFUSE = 7;

    /** REFUSE codes. */
    public static final int BUSY = 1;
    public static final int INCOMPATIBLE = 2;
    public static final int AUTHENTICATION = 3;
    public static final int POLICY = 4;

    private static final int FLAG_SECRET = 1;

    private HandshakeMessages() {
    }

    public record ClientHello(int minVersion, int maxVersion, int kind, boolean provesSecret, byte[] nonce,
                              byte[] service) {
    }

    public record ServerHello(int version, boolean requiresSecret, byte[] nonce) {
    }

    public record Refuse(int code, String reason) {
    }

    /** A message as read: its type and body. */
    public record Message(int type, byte[] body) {
    }

    /** {@code type | length | body}. */
    public static byte[] frame(int type, byte[] body) {
        if (body.length > MAX_BODY) {
            throw new IllegalArgumentException("handshake message body of " + body.length + " bytes");
        }
        return ByteBuffer.allocate(HEADER + body.length).put((byte) type).putShort((short) body.length).put(body)
                .array();
    }

    /** The body length a header announces, after checking the type; throws for anything malformed. */
    public static int bodyLength(byte[] header) {
        int type = header[0] & 0xFF;
        int len = ((header[1] & 0xFF) << 8) | (header[2] & 0xFF);
        if (type < CLIENT_HELLO || type > REFUSE) {
            throw new HandshakeException("not a Rivulet handshake (message type " + type + ")");
        }
        if (len > MAX_BODY) {
            throw new HandshakeException("handshake message of " + len + " bytes exceeds " + MAX_BODY);
        }
        return len;
    }

    public static byte[] clientHello(ClientHello h) {
        ByteBuffer b = ByteBuffer.allocate(4 + 2 + 2 + 1 + 1 + NONCE_BYTES + 2 + h.service().length);
        b.putInt(MAGIC).putShort((short) h.minVersion()).putShort((short) h.maxVersion()).put((byte) h.kind())
                .put((byte) (h.provesSecret() ? FLAG_SECRET : 0)).put(h.nonce()).putShort((short) h.service().length)
                .put(h.service());
        return b.array();
    }

    public static ClientHello parseClientHello(byte[] body) {
        try {
            ByteBuffer b = ByteBuffer.wrap(body);
            magic(b);
            int min = Short.toUnsignedInt(b.getShort());
            int max = Short.toUnsignedInt(b.getShort());
            int kind = Byte.toUnsignedInt(b.get());
            int flags = Byte.toUnsignedInt(b.get());
            if ((flags & ~FLAG_SECRET) != 0) {
                throw new HandshakeException("client hello has unknown flags 0x" + Integer.toHexString(flags));
            }
            byte[] nonce = bytes(b, NONCE_BYTES);
            byte[] service = bytes(b, Short.toUnsignedInt(b.getShort()));
            end(b, "client hello");
            if (min > max || min == 0) {
                throw new HandshakeException("client hello offers versions " + min + ".." + max);
            }
            return new ClientHello(min, max, kind, (flags & FLAG_SECRET) != 0, nonce, service);
        } catch (BufferUnderflowException e) {
            throw new HandshakeException("truncated client hello");
        }
    }

    public static byte[] serverHello(ServerHello h) {
        return ByteBuffer.allocate(4 + 2 + 1 + NONCE_BYTES).putInt(MAGIC).putShort((short) h.version())
                .put((byte) (h.requiresSecret() ? FLAG_SECRET : 0)).put(h.nonce()).array();
    }

    public static ServerHello parseServerHello(byte[] body) {
        try {
            ByteBuffer b = ByteBuffer.wrap(body);
            magic(b);
            int version = Short.toUnsignedInt(b.getShort());
            int flags = Byte.toUnsignedInt(b.get());
            if ((flags & ~FLAG_SECRET) != 0) {
                throw new HandshakeException("server hello has unknown flags 0x" + Integer.toHexString(flags));
            }
            byte[] nonce = bytes(b, NONCE_BYTES);
            end(b, "server hello");
            return new ServerHello(version, (flags & FLAG_SECRET) != 0, nonce);
        } catch (BufferUnderflowException e) {
            throw new HandshakeException("truncated server hello");
        }
    }

    /** A proof body: exactly {@link #MAC_BYTES} bytes. */
    public static byte[] parseProof(byte[] body) {
        if (body.length != MAC_BYTES) {
            throw new HandshakeException("proof of " + body.length + " bytes, expected " + MAC_BYTES);
        }
        return body;
    }

    public static byte[] refuse(Refuse r) {
        byte[] text = r.reason().getBytes(StandardCharsets.UTF_8);
        int n = Math.min(text.length, MAX_REASON);
        return ByteBuffer.allocate(1 + n).put((byte) r.code()).put(text, 0, n).array();
    }

    public static Refuse parseRefuse(byte[] body) {
        if (body.length < 1 || body.length > 1 + MAX_REASON) {
            throw new HandshakeException("malformed refusal of " + body.length + " bytes");
        }
        int code = Byte.toUnsignedInt(body[0]);
        // Decoded leniently: a reason is for a log line, and malformed UTF-8 becomes replacement characters.
        String reason = new String(body, 1, body.length - 1, StandardCharsets.UTF_8);
        return new Refuse(code, reason);
    }

    private static void magic(ByteBuffer b) {
        int magic = b.getInt();
        if (magic != MAGIC) {
            throw new HandshakeException("not a Rivulet peer (magic 0x" + Integer.toHexString(magic) + ")");
        }
    }

    private static byte[] bytes(ByteBuffer b, int n) {
        if (n > b.remaining()) {
            throw new BufferUnderflowException();
        }
        byte[] out = new byte[n];
        b.get(out);
        return out;
    }

    private static void end(ByteBuffer b, String what) {
        if (b.hasRemaining()) {
            throw new HandshakeException(what + " has " + b.remaining() + " trailing bytes");
        }
    }
}
