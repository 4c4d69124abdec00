package dev.rivulet.rdma.verbs;

import dev.rivulet.core.sys.Descriptors;
import dev.rivulet.core.sys.ErrnoException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The eventfd a thread waiting on a verbs descriptor (a completion channel, an rdma_cm event channel) sleeps next
 * to, so that other threads can wake it: the waiter polls both descriptors, a waker adds 1 to the counter.
 */
final class WakeFd {

    private WakeFd() {
    }

    /**
     * Makes {@code channelFd} non-blocking (its events are read until {@code EAGAIN}) and opens the wake-up eventfd
     * beside it.
     *
     * @throws ErrnoException when either fails; nothing is left open then
     */
    static int open(int channelFd) {
        Descriptors.setNonBlocking(channelFd, true);
        return Descriptors.eventfd(0, Descriptors.EFD_NONBLOCK | Descriptors.EFD_CLOEXEC);
    }

    /** Adds 1 to the counter (makes it readable); errors are ignored, a full counter is readable anyway. */
    static void signal(int wakeFd, MemorySegment eightBytes) {
        eightBytes.set(ValueLayout.JAVA_LONG, 0, 1L);
        Descriptors.write(wakeFd, eightBytes);
    }

    /** Reads (and so resets) the counter; harmless when it is 0 (non-blocking: EAGAIN). */
    static void drain(int wakeFd, MemorySegment eightBytes) {
        Descriptors.read(wakeFd, eightBytes);
    }
}
