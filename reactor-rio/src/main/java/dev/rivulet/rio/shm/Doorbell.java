package dev.rivulet.rio.shm;

import dev.rivulet.rio.shm.sys.Futex;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * One side's wake-up word in the shared control block, a futex word. A side about to sleep marks its bell
 * {@link #SLEEPING}, looks at its rings once more, and sleeps on the word only if they are still empty; the peer,
 * after publishing something (a record, or space it freed), looks at the bell and, if it reads {@code SLEEPING},
 * flips it back and wakes the futex.
 *
 * <p>This is Dekker's handshake: the sleeper stores the bell then loads the ring, the waker stores the ring then loads
 * the bell, each with a full fence between, so at least one of them sees the other and no wake-up is lost. An idle
 * pair therefore costs nothing but the polling threads' timed sleeps, and a busy pair never makes a system call: the
 * waker's only cost is a fence and a load of a line the sleeper writes twice per sleep.
 */
final class Doorbell {

    static final int AWAKE = 0;
    static final int SLEEPING = 1;
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    private final MemorySegment word;

    Doorbell(MemorySegment word) {
        this.word = word;
    }

    MemorySegment word() {
        return word;
    }

    /** The owner is about to sleep; a volatile store, so the ring loads after it cannot move before it. */
    void sleeping() {
        INT.setVolatile(word, 0L, SLEEPING);
    }

    /** The owner is awake again. */
    void awake() {
        INT.setRelease(word, 0L, AWAKE);
    }

    /**
     * The peer's side: called after publishing; wakes the owner if it sleeps (or is about to). Returns whether a
     * wake-up was sent.
     */
    boolean ring() {
        VarHandle.fullFence(); // orders the publication before the load of the bell
        if ((int) INT.getVolatile(word, 0L) == SLEEPING && INT.compareAndSet(word, 0L, SLEEPING, AWAKE)) {
            Futex.wake(word, 1, true);
            return true;
        }
        return false;
    }
}
