package dev.rivulet.rdma.verbs;

import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.error.CreditProtocolException;

/**
 * The engine's 64-bit control word ({@link ControlWord}) in the 32 bits of a verbs immediate: every message is a
 * {@code SEND_WITH_IMM}, so the word travels outside the payload and zero-copy receives need no prefix.
 *
 * <pre>
 *  31                                8 7        0
 * +-----------------------------------+----------+
 * |   credits granted to the receiver |   type   |
 * +-----------------------------------+----------+
 * </pre>
 *
 * The credit field is 24 bits where the control word's is 32: a grant never exceeds the receive queue depth, which the
 * transport keeps below the device's {@code max_qp_wr} (at most 2^24 on every device rdma-core knows) when it opens.
 */
final class ImmediateWord {

    /** Credits one immediate can grant. */
    static final long MAX_CREDITS = 0xFF_FFFFL;

    private ImmediateWord() {
    }

    /** The immediate for {@code controlWord}; throws when its grant does not fit (a bug, never a peer's doing). */
    static int encode(long controlWord) {
        long credits = ControlWord.credits(controlWord);
        if (credits > MAX_CREDITS) {
            throw new CreditProtocolException("a grant of " + credits + " credits does not fit a verbs immediate");
        }
        return (int) (credits << 8) | ControlWord.type(controlWord);
    }

    /** The control word a received immediate stands for (checked by the engine like any other). */
    static long decode(int immediate) {
        return ControlWord.encode(immediate & 0xFF, Integer.toUnsignedLong(immediate) >>> 8);
    }
}
