package dev.rivulet.core.resume;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * The session protocol's frames, one per underlying message, big-endian, each starting with its type byte:
 *
 * <pre>
 * SETUP      1 | version | window:int                               client: start a new session
 * RESUME     2 | version | token:16 | received:long | taken:long    client: resume a session
 * SETUP_OK   3 | token:16 | window:int                              server: the new session's token and window
 * RESUME_OK  4 | received:long | taken:long                         server: the session resumes
 * REJECTED   5 | reason:utf8                                        server: no such session; the connection closes
 * DATA       6 | position:long | payload                            a message, positions 1, 2, 3, ...
 * ACK        7 | taken:long                                         the receiver's application took up to here
 * CLOSE      8                                                      the session ends (receive completes)
 * OP         9 | id:long | kind | window:long | key:long | offset:long | operands    an operation on a window the
 *                                                                                   receiver exposed, ids 1, 2, 3, ...
 * ANSWER    10 | id:long | status | result                              the target's answer to operation id
 * ANSWERED  11 | id:long                                               the requester has every answer up to id
 * </pre>
 *
 * {@code received} is the last position that arrived (the sender replays from the next one), {@code taken} the last
 * one the application took (the sender's window counts from it and it drops what is taken). An operation's operands
 * are the bytes of a PUT, the length of a GET, or the operands of an atomic (FETCH_ADD delta, COMPARE_SWAP expected
 * and desired, SWAP value); its answer's result is empty (PUT), the bytes read (GET), the previous value (atomics), or
 * nothing with status REFUSED.
 */
final class Frames {

    static final byte SETUP = 1;
    static final byte RESUME = 2;
    static final byte SETUP_OK = 3;
    static final byte RESUME_OK = 4;
    static final byte REJECTED = 5;
    static final byte DATA = 6;
    static final byte ACK = 7;
    static final byte CLOSE = 8;
    static final byte OP = 9;
    static final byte ANSWER = 10;
    static final byte ANSWERED = 11;

    static final byte PUT = 1;
    static final byte GET = 2;
    static final byte FETCH_ADD = 3;
    static final byte COMPARE_SWAP = 4;
    static final byte SWAP = 5;

    static final byte OK = 0;
    static final byte REFUSED = 1;

    static final byte VERSION = 1;
    /** Type and position in front of each message's payload. */
    static final int DATA_HEADER = 1 + Long.BYTES;
    /** Type, id, kind, window, key and offset in front of a PUT's bytes (an ANSWER's header is shorter). */
    static final int OP_HEADER = 1 + Long.BYTES + 1 + 3 * Long.BYTES;

    private Frames() {
    }

    static byte[] setup(int window) {
        return allocate(SETUP, 1 + Integer.BYTES).put(VERSION).putInt(window).array();
    }

    static byte[] resume(SessionToken token, long received, long taken) {
        ByteBuffer b = allocate(RESUME, 1 + SessionToken.BYTES + 2 * Long.BYTES).put(VERSION);
        token.write(b);
        return b.putLong(received).putLong(taken).array();
    }

    static byte[] setupOk(SessionToken token, int window) {
        ByteBuffer b = allocate(SETUP_OK, SessionToken.BYTES + Integer.BYTES);
        token.write(b);
        return b.putInt(window).array();
    }

    static byte[] resumeOk(long received, long taken) {
        return allocate(RESUME_OK, 2 * Long.BYTES).putLong(received).putLong(taken).array();
    }

    static byte[] rejected(String reason) {
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        return allocate(REJECTED, text.length).put(text).array();
    }

    static byte[] data(long position, byte[] payload) {
        return allocate(DATA, Long.BYTES + payload.length).putLong(position).put(payload).array();
    }

    static byte[] ack(long taken) {
        return allocate(ACK, Long.BYTES).putLong(taken).array();
    }

    static byte[] close() {
        return new byte[] {CLOSE};
    }

    /**
     * An operation's frame without its id (given when it is admitted, {@link #op}): kind, window, key and offset,
     * with room for {@code operands} bytes the caller puts.
     */
    static ByteBuffer request(byte kind, SessionMemory target, int operands) {
        return ByteBuffer.allocate(OP_HEADER + operands).put(OP).putLong(0).put(kind).putLong(target.window())
                .putLong(target.key()).putLong(target.offset());
    }

    /** {@code request} (from {@link #request}) numbered {@code id}, in place. */
    static byte[] op(long id, byte[] request) {
        ByteBuffer.wrap(request).putLong(1, id);
        return request;
    }

    static byte[] answer(long id, byte[] result) {
        return allocate(ANSWER, Long.BYTES + 1 + result.length).putLong(id).put(OK).put(result).array();
    }

    static byte[] answer(long id, long previous) {
        return allocate(ANSWER, Long.BYTES + 1 + Long.BYTES).putLong(id).put(OK).putLong(previous).array();
    }

    static byte[] refused(long id) {
        return allocate(ANSWER, Long.BYTES + 1).putLong(id).put(REFUSED).array();
    }

    static byte[] answered(long id) {
        return allocate(ANSWERED, Long.BYTES).putLong(id).array();
    }

    /** The reason text of a REJECTED frame whose body (after the type) is {@code body}. */
    static String reason(ByteBuffer body) {
        byte[] text = new byte[Math.min(body.remaining(), 200)];
        body.get(text);
        return new String(text, StandardCharsets.UTF_8);
    }

    private static ByteBuffer allocate(byte type, int body) {
        return ByteBuffer.allocate(1 + body).put(type);
    }
}
