package dev.rivulet.rio.shm.sys;

import dev.rivulet.core.sys.Errno;
import dev.rivulet.core.sys.ErrnoException;
import dev.rivulet.core.sys.Libc;
import dev.rivulet.core.sys.Timespec;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * A vector of {@code struct futex_waitv} for one {@code futex_waitv(2)} sleep on up to {@link #MAX} words at once:
 * the thread wakes when any of them is woken, or when one no longer holds the value it was expected to hold as the
 * call starts (then the call returns at once). Owned by one thread; not thread-safe.
 *
 * <pre>
 * struct futex_waitv { __u64 val; __u64 uaddr; __u32 flags; __u32 __reserved; };
 * </pre>
 */
public final class FutexWaitVector implements AutoCloseable {

    /** {@code FUTEX_WAITV_MAX}. */
    public static final int MAX = 128;

    static final StructLayout ENTRY = MemoryLayout.structLayout(
            JAVA_LONG.withName("val"),
            JAVA_LONG.withName("uaddr"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("__reserved"));
    private static final VarHandle VAL = ENTRY.varHandle(MemoryLayout.PathElement.groupElement("val"));
    private static final VarHandle UADDR = ENTRY.varHandle(MemoryLayout.PathElement.groupElement("uaddr"));
    private static final VarHandle FLAGS = ENTRY.varHandle(MemoryLayout.PathElement.groupElement("flags"));
    /** {@code FUTEX2_SIZE_U32}: every word here is 32 bits. */
    static final int FUTEX2_SIZE_U32 = 0x02;
    static final int FUTEX2_PRIVATE = Futex.FUTEX_PRIVATE_FLAG;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment entries = arena.allocate(ENTRY.byteSize() * MAX, 8);
    /** The absolute deadline on CLOCK_MONOTONIC. */
    private final MemorySegment deadline = arena.allocate(Timespec.LAYOUT);

    /** Sets entry {@code index}: sleep while {@code word} holds {@code expected}. */
    public void set(int index, MemorySegment word, int expected, boolean shared) {
        if (index < 0 || index >= MAX) {
            throw new IndexOutOfBoundsException("futex_waitv entry " + index);
        }
        MemorySegment e = entries.asSlice(index * ENTRY.byteSize(), ENTRY.byteSize());
        VAL.set(e, 0L, expected & 0xFFFF_FFFFL);
        UADDR.set(e, 0L, word.address());
        FLAGS.set(e, 0L, FUTEX2_SIZE_U32 | (shared ? 0 : FUTEX2_PRIVATE));
    }

    /**
     * Sleeps on the first {@code count} entries for at most {@code nanos}. Returns the index of an entry that was
     * woken, or {@code -errno}: {@code -EAGAIN} when a word no longer held its expected value,
     * {@code -ETIMEDOUT}, {@code -EINTR}. Anything else is thrown.
     */
    public int await(int count, long nanos) {
        Libc.clockGettime(Libc.CLOCK_MONOTONIC, deadline);
        Timespec.addNanos(deadline, nanos);
        long r = Libc.syscall(Futex.NR_FUTEX_WAITV, entries.address(), count, 0, deadline.address(),
                Libc.CLOCK_MONOTONIC);
        if (r >= 0 || r == -Errno.EAGAIN || r == -Errno.ETIMEDOUT || r == -Errno.EINTR) {
            return (int) r;
        }
        throw new ErrnoException("futex_waitv", (int) -r);
    }

    @Override
    public void close() {
        arena.close();
    }
}
