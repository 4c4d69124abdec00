package dev.rivulet.rdma.wire;

import dev.rivulet.core.credit.BatchFraming;
import dev.rivulet.core.credit.ControlWord;
import dev.rivulet.core.memory.Buffer;

/**
 * The receive buffers a wire owes its peer, where every posted receive holds a buffer and matches whatever arrives
 * next (libfabric's untagged receives, a verbs receive queue): the engine's data slots, and {@link #CONTROL_SLOTS}
 * buffers beyond them for protocol-only words (credit grants, close), each replaced as soon as it is consumed, since
 * the peer sends those without a credit. Posting takes the protocol-only ones first, so the peer's next word always
 * finds a buffer.
 *
 * <p>A coalesced frame ({@code BATCH}) of k messages uses k credits but one buffer: the k-1 buffers it leaves posted
 * already cover the engine's next grants ({@link #owe}), else every frame would leave buffers posted beyond the
 * credits outstanding until they filled the queue. Progress thread only.
 */
public final class OwedReceives {

    /** Receive buffers kept posted for protocol-only words on top of the engine's data slots. */
    public static final int CONTROL_SLOTS = 8;

    private int control = CONTROL_SLOTS;
    private int data;
    /** Data buffers posted beyond the credits outstanding (left by coalesced frames). */
    private int surplus;

    /** The engine makes room for {@code count} more data messages (as many credits as it is about to grant). */
    public void owe(int count) {
        int covered = Math.min(count, surplus);
        surplus -= covered;
        data += count - covered;
    }

    /** Buffers owed in all. */
    public int total() {
        return control + data;
    }

    /** Protocol-only buffers owed (posted first). */
    public int control() {
        return control;
    }

    /** {@code n} of the buffers owed were posted, protocol-only ones first. */
    public void posted(int n) {
        int c = Math.min(n, control);
        control -= c;
        data -= n - c;
    }

    /**
     * A buffer was consumed without carrying data (a protocol-only word, or a message dropped unread): another
     * takes its place, so the credits granted to the peer stay covered.
     */
    public void replace() {
        control++;
    }

    /**
     * A {@code DATA} or {@code BATCH} message of {@code length} bytes arrived in {@code b}: sets its length and
     * returns how many messages it carries (a frame's surplus buffers are counted).
     */
    public int dataArrived(long word, Buffer b, long length) {
        b.length((int) length);
        if (ControlWord.type(word) != ControlWord.BATCH) {
            return 1;
        }
        int k = BatchFraming.count(b.capacitySegment(), length);
        if (k <= 1) {
            return 1;
        }
        surplus += k - 1;
        return k;
    }

    /** Whether {@code word} announces data (a message or a coalesced frame) rather than a protocol-only word. */
    public static boolean carriesData(long word) {
        int type = ControlWord.type(word);
        return type == ControlWord.DATA || type == ControlWord.BATCH;
    }
}
