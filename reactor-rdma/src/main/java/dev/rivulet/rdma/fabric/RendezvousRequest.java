package dev.rivulet.rdma.fabric;

import dev.rivulet.core.credit.ControlWord;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The wire-internal words of the rendezvous protocol for messages larger than the eager size, and the request's
 * payload. They never reach the engine: the receiver turns a completed rendezvous into an ordinary {@code DATA}
 * arrival.
 * <ul>
 *   <li>{@link #REQUEST} (type 5, credits as for DATA): payload {@code u64 address | u64 length | u64 key |
 *       u32 token} naming the sender's message, registered for remote read only for this message;</li>
 *   <li>{@link #DONE} (type 6, the credits field carries the token): the receiver has read the message, the sender
 *       may complete the send and deregister the window.</li>
 * </ul>
 */
final class RendezvousRequest {

    static final int REQUEST = 5;
    static final int DONE = 6;
    /** The request's payload size. */
    static final int BYTES = 28;

    private RendezvousRequest() {
    }

    /** The word of a request carrying the credits of the message's own {@code controlWord}. */
    static long requestWord(long controlWord) {
        return ControlWord.credits(controlWord) << 32 | REQUEST;
    }

    /** The done word answering the request with {@code token}. */
    static long doneWord(int token) {
        return (long) token << 32 | DONE;
    }

    static void write(MemorySegment m, long address, long length, long key, int token) {
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, address);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, length);
        m.set(ValueLayout.JAVA_LONG_UNALIGNED, 16, key);
        m.set(ValueLayout.JAVA_INT_UNALIGNED, 24, token);
    }

    static long address(MemorySegment m) {
        return m.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
    }

    static long length(MemorySegment m) {
        return m.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
    }

    static long key(MemorySegment m) {
        return m.get(ValueLayout.JAVA_LONG_UNALIGNED, 16);
    }

    static int token(MemorySegment m) {
        return m.get(ValueLayout.JAVA_INT_UNALIGNED, 24);
    }
}
