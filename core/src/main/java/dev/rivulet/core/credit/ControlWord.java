package dev.rivulet.core.credit;

/**
 * The 64-bit word every message of the credit protocol carries (see {@code docs/credit-protocol.md}): where the
 * fabric has immediate data ({@code fi_senddata}, verbs immediates) it travels there, otherwise as an 8-byte
 * prefix.
 *
 * <pre>
 *  63                              32 31            8 7        0
 * +----------------------------------+---------------+----------+
 * |  credits granted to the receiver |   reserved 0  |   type   |
 * +----------------------------------+---------------+----------+
 * </pre>
 */
public final class ControlWord {

    /** A message for the peer's {@code receive()}; consumes one credit. */
    public static final int DATA = 1;
    /** A standalone credit grant; consumes nothing. */
    public static final int CREDIT = 2;
    /** Graceful close: the sender will send nothing more. */
    public static final int CLOSE = 3;
    /** Several small messages packed into one (coalescing); consumes one credit per packed message. */
    public static final int BATCH = 4;

    /** Credits one word can grant (unsigned 32 bits). */
    public static final long MAX_CREDITS = 0xFFFF_FFFFL;

    private ControlWord() {
    }

    public static long encode(int type, long credits) {
        if (credits < 0 || credits > MAX_CREDITS) {
            throw new IllegalArgumentException("credits out of range: " + credits);
        }
        return credits << 32 | (type & 0xFF);
    }

    public static int type(long word) {
        return (int) (word & 0xFF);
    }

    public static long credits(long word) {
        return word >>> 32;
    }

    /** Whether the reserved bits are zero and the type is known: anything else is a protocol violation. */
    public static boolean isValid(long word) {
        int t = type(word);
        return (word & 0xFFFF_FF00L) == 0 && t >= DATA && t <= BATCH;
    }
}
