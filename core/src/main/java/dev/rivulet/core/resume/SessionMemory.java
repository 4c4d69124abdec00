package dev.rivulet.core.resume;

import dev.rivulet.core.error.InvalidRequestException;

import java.nio.ByteBuffer;

/**
 * A window of memory the peer exposed to one session ({@link ResumableSession#expose}): what the owner hands the
 * other side (as a message, {@link #toBytes()}) so it can run {@code put}, {@code get} and atomics there through
 * that session. It is a plain value naming the session, the window, the window's key, and an offset and length
 * inside the window; nothing here says where the owner's memory lies, and nothing is trusted by the owner, which
 * checks key, bounds and rights again before touching its memory. A handle can only be narrowed ({@link #slice}).
 */
public final class SessionMemory {

    private static final int MAGIC = 0x52565331; // "RVS1"
    private static final int BYTES = Integer.BYTES + 5 * Long.BYTES;

    private final long session;
    private final long window;
    private final long key;
    private final long offset;
    private final long length;

    SessionMemory(long session, long window, long key, long offset, long length) {
        this.session = session;
        this.window = window;
        this.key = key;
        this.offset = offset;
        this.length = length;
    }

    /** How many bytes the handle reaches. */
    public long length() {
        return length;
    }

    /** A narrower handle {@code [offset, offset + length)} of this one. */
    public SessionMemory slice(long offset, long length) {
        if (offset < 0 || length < 0 || offset > this.length || length > this.length - offset) {
            throw new InvalidRequestException("slice [" + offset + ", +" + length + ") outside a session window of "
                    + this.length + " bytes");
        }
        return new SessionMemory(session, window, key, this.offset + offset, length);
    }

    /** A self-describing byte form (big-endian) to send to the peer, for example as a session message. */
    public byte[] toBytes() {
        return ByteBuffer.allocate(BYTES).putInt(MAGIC).putLong(session).putLong(window).putLong(key)
                .putLong(offset).putLong(length).array();
    }

    /** Parses {@link #toBytes()}; malformed input gives an {@link InvalidRequestException}, never a partial handle. */
    public static SessionMemory fromBytes(byte[] bytes) {
        if (bytes == null || bytes.length != BYTES) {
            throw new InvalidRequestException("not a session memory handle: " + (bytes == null ? "null"
                    : bytes.length + " bytes"));
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        if (b.getInt() != MAGIC) {
            throw new InvalidRequestException("not a session memory handle");
        }
        long session = b.getLong();
        long window = b.getLong();
        long key = b.getLong();
        long offset = b.getLong();
        long length = b.getLong();
        if (offset < 0 || length < 0) {
            throw new InvalidRequestException("a session memory handle with offset " + offset + ", length " + length);
        }
        return new SessionMemory(session, window, key, offset, length);
    }

    /** The session it belongs to: a value derived from the session's token that does not reveal the token. */
    long session() {
        return session;
    }

    long window() {
        return window;
    }

    long key() {
        return key;
    }

    long offset() {
        return offset;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SessionMemory m && m.session == session && m.window == window && m.key == key
                && m.offset == offset && m.length == length;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(window * 31 + offset) * 31 + Long.hashCode(key ^ length);
    }

    /** Never the key: a handle in a log would let its reader reach the window. */
    @Override
    public String toString() {
        return "SessionMemory[window=" + window + ", offset=" + offset + ", length=" + length + "]";
    }
}
