package dev.rivulet.samples.webflux.protocol;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The small control exchange between the front and the storage node, over Rivulet {@code send}/{@code receive}.
 * The bytes of blocks never travel here: the front moves them itself with {@code put} and {@code get} into windows
 * the storage node grants it.
 *
 * <p>Every message starts with its type and a correlation number the answer repeats, so many HTTP requests share one
 * connection. Requests: {@link Hello} (first message of a connection: control or events), {@link Allocate},
 * {@link Lookup}, {@link Commit}, {@link Release}, {@link Delete}. Answers: {@link Granted}, {@link Ok},
 * {@link Failed}.
 */
public sealed interface Control {

    /** The correlation number of a request, repeated by its answer. */
    long corr();

    /** The first message of a connection: what it is for. */
    record Hello(long corr, Purpose purpose) implements Control {
    }

    /** Reserve room for block {@code id} of {@code size} bytes and grant the sender write access to it. */
    record Allocate(long corr, String id, long size) implements Control {
    }

    /** Grant the sender read access to block {@code id}. */
    record Lookup(long corr, String id) implements Control {
    }

    /** The write granted by {@code token} is done: block {@code id} now has {@code length} bytes. */
    record Commit(long corr, long token, String id, long length) implements Control {
    }

    /** The access granted by {@code token} is over (a read finished, or a write was abandoned). */
    record Release(long corr, long token) implements Control {
    }

    /** Forget block {@code id}. */
    record Delete(long corr, String id) implements Control {
    }

    /**
     * Access was granted: the window's handle ({@code RemoteMemory.toBytes()}), the block's length (for a read), and
     * the token that ends the access.
     */
    record Granted(long corr, long token, long length, byte[] handle) implements Control {
    }

    record Ok(long corr) implements Control {
    }

    record Failed(long corr, Reason reason, String text) implements Control {
    }

    enum Purpose { CONTROL, EVENTS }

    enum Reason { NOT_FOUND, TOO_LARGE, FULL, BAD_REQUEST }

    int HELLO = 1;
    int ALLOCATE = 2;
    int LOOKUP = 3;
    int COMMIT = 4;
    int RELEASE = 5;
    int DELETE = 6;
    int GRANTED = 10;
    int OK = 11;
    int FAILED = 12;

    /** Ids are short names from a URL path. */
    int MAX_ID_BYTES = 256;

    static byte[] encode(Control m) {
        ByteBuffer b = ByteBuffer.allocate(512 + (m instanceof Granted g ? g.handle().length : 0));
        switch (m) {
            case Hello h -> head(b, HELLO, h.corr()).put((byte) h.purpose().ordinal());
            case Allocate a -> text(head(b, ALLOCATE, a.corr()), a.id()).putLong(a.size());
            case Lookup l -> text(head(b, LOOKUP, l.corr()), l.id());
            case Commit c -> text(head(b, COMMIT, c.corr()).putLong(c.token()), c.id()).putLong(c.length());
            case Release r -> head(b, RELEASE, r.corr()).putLong(r.token());
            case Delete d -> text(head(b, DELETE, d.corr()), d.id());
            case Granted g -> head(b, GRANTED, g.corr()).putLong(g.token()).putLong(g.length())
                    .putShort((short) g.handle().length).put(g.handle());
            case Ok o -> head(b, OK, o.corr());
            case Failed f -> text(head(b, FAILED, f.corr()).put((byte) f.reason().ordinal()), f.text());
        }
        byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    /** Reads a message; anything malformed is an {@link IllegalArgumentException} naming what was wrong. */
    static Control decode(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        try {
            int type = b.get() & 0xFF;
            long corr = b.getLong();
            Control m = switch (type) {
                case HELLO -> new Hello(corr, Purpose.values()[b.get()]);
                case ALLOCATE -> new Allocate(corr, text(b), b.getLong());
                case LOOKUP -> new Lookup(corr, text(b));
                case COMMIT -> new Commit(corr, b.getLong(), text(b), b.getLong());
                case RELEASE -> new Release(corr, b.getLong());
                case DELETE -> new Delete(corr, text(b));
                case GRANTED -> {
                    long token = b.getLong();
                    long length = b.getLong();
                    byte[] handle = new byte[b.getShort() & 0xFFFF];
                    b.get(handle);
                    yield new Granted(corr, token, length, handle);
                }
                case OK -> new Ok(corr);
                case FAILED -> new Failed(corr, Reason.values()[b.get()], text(b));
                default -> throw new IllegalArgumentException("unknown control message type " + type);
            };
            if (b.hasRemaining()) {
                throw new IllegalArgumentException("trailing bytes after a control message of type " + type);
            }
            return m;
        } catch (BufferUnderflowException | ArrayIndexOutOfBoundsException e) {
            throw new IllegalArgumentException("truncated or malformed control message", e);
        }
    }

    private static ByteBuffer head(ByteBuffer b, int type, long corr) {
        return b.put((byte) type).putLong(corr);
    }

    private static ByteBuffer text(ByteBuffer b, String s) {
        byte[] t = s.getBytes(StandardCharsets.UTF_8);
        if (t.length > MAX_ID_BYTES) {
            throw new IllegalArgumentException("text of " + t.length + " bytes is longer than " + MAX_ID_BYTES);
        }
        return b.putShort((short) t.length).put(t);
    }

    private static String text(ByteBuffer b) {
        int n = b.getShort() & 0xFFFF;
        if (n > MAX_ID_BYTES) {
            throw new IllegalArgumentException("text of " + n + " bytes is longer than " + MAX_ID_BYTES);
        }
        byte[] t = new byte[n];
        b.get(t);
        return new String(t, StandardCharsets.UTF_8);
    }
}
