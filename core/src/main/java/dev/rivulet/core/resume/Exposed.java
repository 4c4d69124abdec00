package dev.rivulet.core.resume;

import dev.rivulet.core.engine.AtomicOp;
import dev.rivulet.core.error.CreditProtocolException;
import dev.rivulet.core.memory.Access;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

/**
 * The target half of a session's operations: the windows this side exposed, and each operation of the peer applied
 * once. Operations are numbered 1, 2, 3, ... and arrive in order (the requester writes them in order and re-issues
 * those it has no answer for after a resume); one already applied is answered from the answer kept for it, never
 * applied again. Answers are kept until the requester acknowledges them, at most the window of them: the requester
 * numbers an operation only within the window past what it acknowledged. Guarded by the session's lock.
 */
final class Exposed {

    private final Map<Long, SessionWindow> windows = new HashMap<>();
    private final int window;
    private final int maxTransfer;
    /**
     * Answer frames of the operations after {@link #acknowledged} up to {@link #applied}, by id modulo the window;
     * made on the first operation, as most sessions carry messages only.
     */
    private byte @Nullable [] @Nullable [] answers;
    private long lastWindow;
    /** The last operation applied. */
    private long applied;
    /** The last operation whose answer the requester acknowledged. */
    private long acknowledged;

    Exposed(int window, int maxTransfer) {
        this.window = window;
        this.maxTransfer = maxTransfer;
    }

    long nextWindowId() {
        return ++lastWindow;
    }

    void add(SessionWindow window) {
        windows.put(window.id(), window);
    }

    void withdraw(SessionWindow window) {
        window.markWithdrawn();
        windows.remove(window.id(), window);
    }

    /** The answer to operation {@code id} ({@code op} is its frame, after the id): applied now, or the kept one. */
    byte[] arrived(long id, ByteBuffer op) {
        if (id <= acknowledged || id > applied + 1) {
            throw new CreditProtocolException("operation " + id + " arrived after " + applied + " were applied and "
                    + acknowledged + " answers acknowledged");
        }
        byte[][] kept = answers != null ? answers : (answers = new byte[window][]);
        if (id <= applied) {
            return kept[slot(id)]; // re-issued across a break that lost the answer
        }
        if (id > acknowledged + window) {
            throw new CreditProtocolException("operation " + id + " is beyond the window: " + acknowledged
                    + " answers acknowledged, window " + window);
        }
        byte[] answer = apply(id, op);
        applied = id;
        kept[slot(id)] = answer;
        return answer;
    }

    /** The requester has every answer up to {@code id}: they need not be kept any more. */
    void acknowledged(long id) {
        if (id > applied) {
            throw new CreditProtocolException("answers acknowledged up to " + id + ", but " + applied + " applied");
        }
        for (long i = acknowledged + 1; i <= id && answers != null; i++) {
            answers[slot(i)] = null;
        }
        acknowledged = Math.max(acknowledged, id);
    }

    /** The session ended: every window is withdrawn and no answer is kept. */
    void clear() {
        windows.values().forEach(SessionWindow::markWithdrawn);
        windows.clear();
        answers = null;
    }

    /** Answers kept for operations that may be re-issued. */
    int keptAnswers() {
        return (int) (applied - acknowledged);
    }

    private int slot(long id) {
        return (int) (id % window);
    }

    /**
     * Applies one operation if its window, key, rights and bounds allow it; refused otherwise, the same way whatever
     * the reason, so a peer cannot tell windows apart. Atomics are hardware atomics on the word (atomic with the
     * owner's own accesses); one on a word that is not 8-byte aligned, or memory that is gone, is refused.
     */
    private byte[] apply(long id, ByteBuffer op) {
        byte kind = op.get();
        SessionWindow window = windows.get(op.getLong());
        long key = op.getLong();
        long offset = op.getLong();
        Access right = switch (kind) {
            case Frames.PUT -> Access.REMOTE_WRITE;
            case Frames.GET -> Access.REMOTE_READ;
            case Frames.FETCH_ADD, Frames.COMPARE_SWAP, Frames.SWAP -> Access.REMOTE_ATOMIC;
            default -> throw new CreditProtocolException("unknown operation " + kind);
        };
        long n = switch (kind) {
            case Frames.PUT -> op.remaining();
            case Frames.GET -> op.getInt();
            default -> Long.BYTES;
        };
        if (window == null || n > maxTransfer || !window.allows(key, right, offset, n)) {
            return Frames.refused(id);
        }
        MemorySegment memory = window.memory();
        try {
            return switch (kind) {
                case Frames.PUT -> {
                    MemorySegment.copy(MemorySegment.ofBuffer(op), 0, memory, offset, n);
                    yield Frames.answer(id, new byte[0]);
                }
                case Frames.GET -> Frames.answer(id, memory.asSlice(offset, n).toArray(ValueLayout.JAVA_BYTE));
                case Frames.FETCH_ADD -> Frames.answer(id, AtomicOp.FETCH_ADD.applyTo(memory, offset, 8, op.getLong(),
                        0));
                case Frames.COMPARE_SWAP -> {
                    long expected = op.getLong();
                    yield Frames.answer(id, AtomicOp.COMPARE_SWAP.applyTo(memory, offset, 8, op.getLong(), expected));
                }
                default -> Frames.answer(id, AtomicOp.SWAP.applyTo(memory, offset, 8, op.getLong(), 0));
            };
        } catch (IllegalArgumentException | IllegalStateException | UnsupportedOperationException
                 | WrongThreadException e) {
            return Frames.refused(id); // a misaligned word, memory its owner closed, or memory only one thread uses
        }
    }
}
