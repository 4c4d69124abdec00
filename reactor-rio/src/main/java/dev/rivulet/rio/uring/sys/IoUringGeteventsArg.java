package dev.rivulet.rio.uring.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code struct io_uring_getevents_arg} (24 bytes): the {@code arg} of {@code io_uring_enter} with
 * {@code IORING_ENTER_EXT_ARG}; {@code argsz} must be {@link #LAYOUT}'s size. Pointers are stored as 64-bit
 * addresses, as the kernel reads them ({@code __u64}).
 */
public final class IoUringGeteventsArg {

    /** {@code _NSIG / 8}: the kernel sigset size liburing passes as {@code sigmask_sz}. */
    public static final int KERNEL_SIGSET_BYTES = 8;

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_LONG.withName("sigmask"),
            JAVA_INT.withName("sigmask_sz"),
            JAVA_INT.withName("pad"),
            JAVA_LONG.withName("ts")
    ).withName("io_uring_getevents_arg");

    private static final VarHandle SIGMASK = LAYOUT.varHandle(groupElement("sigmask"));
    private static final VarHandle SIGMASK_SZ = LAYOUT.varHandle(groupElement("sigmask_sz"));
    private static final VarHandle TS = LAYOUT.varHandle(groupElement("ts"));

    private IoUringGeteventsArg() {
    }

    /** No signal mask change; wait at most {@code timespec} ({@link MemorySegment#NULL}: no timeout). */
    public static void set(MemorySegment arg, MemorySegment timespec) {
        SIGMASK.set(arg, 0L, 0L);
        SIGMASK_SZ.set(arg, 0L, KERNEL_SIGSET_BYTES);
        TS.set(arg, 0L, timespec.address());
    }

    public static long ts(MemorySegment arg) {
        return (long) TS.get(arg, 0L);
    }
}
