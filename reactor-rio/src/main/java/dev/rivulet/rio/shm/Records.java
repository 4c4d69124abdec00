package dev.rivulet.rio.shm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The kinds of record in a connection's rings, and where their fields sit in the payload (all 64-bit fields at
 * multiples of 8, native byte order: both ends run on one host). {@code word} is the record header's 64-bit word.
 *
 * <pre>
 *  MESSAGE   word: control word (DATA, BATCH, CREDIT, CLOSE)    payload: the message (DATA, BATCH), else empty
 *  LARGE     word: control word                                 [0] total length; CHUNKs follow
 *  CHUNK     word: staging pool position                        [0] length
 *  PUT       word: request id   [0] key [8] address [16] length [24] mode; INLINE: the bytes from [32];
 *                                                                STAGED: CHUNKs follow
 *  GET       word: request id   [0] key [8] address [16] length [24] mode (COPY or CROSS_MEMORY)
 *  ATOMIC    word: request id   [0] key [8] address [16] operand [24] compare [32] op (i32) [36] width (i32)
 *  FLUSH     word: request id
 *  MAP       word: request id   [0] key [8] address [16] length
 *  DONE      word: request id   (the initiator finished the copy a CROSS_MEMORY answer allowed)
 *  UNMAP     word: map id       (owner to mapper: the grant was revoked)
 *  UNMAPPED  word: map id       (mapper to owner: the window is no longer mapped)
 *  OK        word: request id   (put applied, flush reached)
 *  VALUE     word: request id   [0] previous value
 *  DATA      word: request id   payload: the bytes a get asked for
 *  STAGED    word: request id   [0] length; CHUNKs follow
 *  GO        word: request id   [0] the target address the initiator may copy to or from, once
 *  MAPPED    word: request id   [0] map id [8] file offset [16] length [24] window base [32] fd (i32) [36] rights (i32)
 *  REFUSED   word: request id
 *  ABORT     ends the staged answer under way (its grant was revoked meanwhile)
 * </pre>
 *
 * Requests are answered in the order they arrive, so the initiator matches answers to its oldest request.
 */
final class Records {

    static final int MESSAGE = 1;
    static final int LARGE = 2;
    static final int CHUNK = 3;
    static final int PUT = 4;
    static final int GET = 5;
    static final int ATOMIC = 6;
    static final int FLUSH = 7;
    static final int MAP = 8;
    static final int DONE = 9;
    static final int UNMAP = 10;
    static final int UNMAPPED = 11;
    static final int OK = 12;
    static final int VALUE = 13;
    static final int DATA = 14;
    static final int STAGED = 15;
    static final int GO = 16;
    static final int MAPPED = 17;
    static final int REFUSED = 18;
    static final int ABORT = 19;

    /** Put and get modes: the data in the request or answer, through the staging pool, or copied by the initiator. */
    static final int INLINE = 0;
    static final int COPY = 0;
    static final int STAGED_DATA = 1;
    static final int CROSS_MEMORY = 2;

    static final int RMA_REQUEST_BYTES = 32;
    static final int ATOMIC_REQUEST_BYTES = 40;
    static final int MAP_REQUEST_BYTES = 24;
    static final int MAPPED_BYTES = 40;

    private Records() {
    }

    /** A request's key: field [0] of PUT, GET, ATOMIC and MAP. */
    static long key(MemorySegment d, long at) {
        return d.get(ValueLayout.JAVA_LONG, at);
    }

    /** A request's remote address: field [8] of PUT, GET, ATOMIC and MAP. */
    static long address(MemorySegment d, long at) {
        return d.get(ValueLayout.JAVA_LONG, at + 8);
    }

    /** Field [16]: the length of PUT, GET, MAP and MAPPED, the operand of ATOMIC. */
    static long third(MemorySegment d, long at) {
        return d.get(ValueLayout.JAVA_LONG, at + 16);
    }

    /** Field [24]: the mode of PUT and GET, the compare value of ATOMIC, the window base of MAPPED. */
    static long fourth(MemorySegment d, long at) {
        return d.get(ValueLayout.JAVA_LONG, at + 24);
    }

    /** Refuses a record whose payload is not the {@code expected} size of a {@code what}. */
    static void requireLength(int length, int expected, String what) {
        if (length != expected) {
            throw new ShmProtocolException(what + " of " + length + " bytes");
        }
    }
}
