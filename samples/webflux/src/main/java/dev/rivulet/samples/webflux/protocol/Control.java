package dev.rivulet.samples.webflux.protocol;

import dev.rivulet.core.interaction.Metadata;
import dev.rivulet.core.interaction.Payload;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * What the front and the storage node say to each other about blocks. The bytes of blocks never travel here: the
 * front moves them itself with {@code put} and {@code get} into windows the storage node grants it.
 *
 * <p>A control connection opens with a {@link Hello} sent as a plain message, then carries an interaction session
 * (requests matched to answers, cancelled and failed one by one, by the library). Each storage operation is a request
 * on a route of its own:
 * <ul>
 *   <li>{@link #WRITE_ROUTE}, a request-channel: {@link Allocate} opens it and is answered with a {@link Granted}
 *       write window; the front puts the bytes, then sends {@link Commit}, answered {@link Committed}. The room stays
 *       reserved while the channel is open: a channel that ends without a commit gives it back.</li>
 *   <li>{@link #READ_ROUTE}, a request-stream: {@link Lookup} is answered with a {@link Granted} read window, held
 *       until the front cancels the stream (its body is done, or its HTTP client went away).</li>
 *   <li>{@link #DELETE_ROUTE}, a request-response: {@link Delete}, answered {@link Ok}.</li>
 * </ul>
 * A refused operation fails its own request with a {@link Refusal}; an events connection opens with its
 * {@code Hello} and then only carries events from the storage node.
 */
public sealed interface Control {

    /** The first message of a connection, sent as a plain message: what the connection is for. */
    record Hello(Purpose purpose) implements Control {
    }

    /** Reserve room for block {@code id} of {@code size} bytes and grant the sender write access to it. */
    record Allocate(String id, long size) implements Control {
    }

    /** The bytes are in the granted window: block {@code id} is now what was written there. */
    record Commit() implements Control {
    }

    /** Grant the sender read access to block {@code id}. */
    record Lookup(String id) implements Control {
    }

    /** Forget block {@code id}. */
    record Delete(String id) implements Control {
    }

    /** Access was granted: the window's handle ({@code RemoteMemory.toBytes()}) and the block's length. */
    record Granted(long length, byte[] handle) implements Control {
    }

    /** The block is stored: {@code created} when its id was new, not when it replaced a block of that id. */
    record Committed(boolean created) implements Control {
    }

    /** Done as asked. */
    record Ok() implements Control {
    }

    enum Purpose { CONTROL, EVENTS }

    /** Routes, each a constant so that its metadata is encoded once. */
    Metadata WRITE_ROUTE = Metadata.route("block.write");
    Metadata READ_ROUTE = Metadata.route("block.read");
    Metadata DELETE_ROUTE = Metadata.route("block.delete");

    int HELLO = 1;
    int ALLOCATE = 2;
    int COMMIT = 3;
    int LOOKUP = 4;
    int DELETE = 5;
    int GRANTED = 10;
    int OK = 11;
    int COMMITTED = 12;

    /** Ids are short names from a URL path. */
    int MAX_ID_BYTES = 256;

    /** {@code m} as an answer. */
    static Payload payload(Control m) {
        return Payload.of(encode(m));
    }

    /** {@code m} as a request on {@code route}. */
    static Payload payload(Control m, Metadata route) {
        return Payload.of(encode(m)).metadata(route);
    }

    /**
     * The message in {@code p}, copied out (a received payload is lent only while it is handed over); anything
     * malformed is an {@link IllegalArgumentException} naming what was wrong.
     */
    static Control decode(Payload p) {
        return decode(p.dataBytes());
    }

    static byte[] encode(Control m) {
        ByteBuffer b = ByteBuffer.allocate(512 + (m instanceof Granted g ? g.handle().length : 0));
        switch (m) {
            case Hello h -> b.put((byte) HELLO).put((byte) h.purpose().ordinal());
            case Allocate a -> text(b.put((byte) ALLOCATE), a.id()).putLong(a.size());
            case Commit c -> b.put((byte) COMMIT);
            case Lookup l -> text(b.put((byte) LOOKUP), l.id());
            case Delete d -> text(b.put((byte) DELETE), d.id());
            case Granted g -> b.put((byte) GRANTED).putLong(g.length()).putShort((short) g.handle().length)
                    .put(g.handle());
            case Ok o -> b.put((byte) OK);
            case Committed c -> b.put((byte) COMMITTED).put((byte) (c.created() ? 1 : 0));
        }
        byte[] out = new byte[b.position()];
        b.flip().get(out);
        return out;
    }

    static Control decode(byte[] bytes) {
        ByteBuffer b = ByteBuffer.wrap(bytes);
        try {
            int type = b.get() & 0xFF;
            Control m = switch (type) {
                case HELLO -> new Hello(Purpose.values()[b.get()]);
                case ALLOCATE -> new Allocate(text(b), b.getLong());
                case COMMIT -> new Commit();
                case LOOKUP -> new Lookup(text(b));
                case DELETE -> new Delete(text(b));
                case GRANTED -> {
                    long length = b.getLong();
                    byte[] handle = new byte[b.getShort() & 0xFFFF];
                    b.get(handle);
                    yield new Granted(length, handle);
                }
                case OK -> new Ok();
                case COMMITTED -> new Committed(b.get() != 0);
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

    private static ByteBuffer text(ByteBuffer b, String s) {
        byte[] t = s.getBytes(StandardCharsets.UTF_8);
        if (t.length > MAX_ID_BYTES) {
            throw new IllegalArgumentException("an id of " + t.length + " bytes is longer than " + MAX_ID_BYTES);
        }
        return b.putShort((short) t.length).put(t);
    }

    private static String text(ByteBuffer b) {
        int n = b.getShort() & 0xFFFF;
        if (n > MAX_ID_BYTES) {
            throw new IllegalArgumentException("an id of " + n + " bytes is longer than " + MAX_ID_BYTES);
        }
        byte[] t = new byte[n];
        b.get(t);
        return new String(t, StandardCharsets.UTF_8);
    }
}
