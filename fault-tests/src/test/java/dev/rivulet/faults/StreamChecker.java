package dev.rivulet.faults;

import dev.rivulet.core.memory.Buffer;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Checks one direction of a stream of {@link StreamMessages} as it arrives: each message must be exactly the next
 * sequence, intact. After a bad message it expects the successor of what arrived, so {@link #bad()} counts incidents
 * (a loss, a duplicate, a corruption) rather than every message after the first. Used from one progress thread.
 */
final class StreamChecker {

    private long next;
    private long count;
    private long bytes;
    private long bad;
    private String firstProblem;

    /** Checks {@code b} (does not release it). */
    void check(Buffer b) {
        check(b.segment());
    }

    /** Checks one message's bytes (a pooled buffer's segment, or a heap array's). */
    void check(MemorySegment message) {
        String problem = StreamMessages.problem(message, next);
        count++;
        bytes += message.byteSize();
        if (problem == null) {
            next++;
            return;
        }
        bad++;
        if (firstProblem == null) {
            firstProblem = problem;
        }
        next = message.byteSize() >= 8 ? message.get(ValueLayout.JAVA_LONG_UNALIGNED, 0) + 1 : next + 1;
    }

    long count() {
        return count;
    }

    long bytes() {
        return bytes;
    }

    long bad() {
        return bad;
    }

    String firstProblem() {
        return firstProblem == null ? "" : firstProblem;
    }
}
