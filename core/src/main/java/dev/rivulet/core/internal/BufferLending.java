package dev.rivulet.core.internal;

import dev.rivulet.core.memory.Buffer;

/**
 * How a receiver hands out messages without copying them: each message is lent as a view onto the memory it sits
 * in, for one {@code onNext}, on the calling thread (see {@link Buffer}'s class comment for what the subscriber may
 * do with it). One lender per endpoint, used by its progress thread.
 */
public interface BufferLending {

    /**
     * A view of {@code length} bytes at {@code offset} of {@code source}'s memory, lent to the calling thread. The
     * source stays the caller's: it must hold the bytes until {@link #giveBack} and is released by the caller after.
     */
    Buffer lend(Buffer source, long offset, int length);

    /**
     * {@code onNext} returned: the view lent last is unusable from now on, unless the subscriber retained it.
     * Returns false when the subscriber released it itself (without having retained it).
     */
    boolean giveBack(Buffer view);
}
