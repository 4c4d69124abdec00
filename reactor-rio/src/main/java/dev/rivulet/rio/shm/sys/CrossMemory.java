package dev.rivulet.rio.shm.sys;

import dev.rivulet.core.sys.Downcalls;
import dev.rivulet.core.sys.Errno;
import dev.rivulet.core.sys.Iovec;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Cross-memory attach: {@code process_vm_readv}/{@code process_vm_writev} between this process and another, one
 * contiguous range each way. The kernel copies directly between the two address spaces, and allows it only where
 * this process may ptrace the other (same user, and Yama's {@code ptrace_scope} and the target's dumpable flag
 * permitting), so a caller must be ready for {@code EPERM}.
 *
 * <p>Addresses are raw: the caller keeps both ranges alive for the duration of the call.
 */
public final class CrossMemory {

    private static final MethodHandle READV = Downcalls.capturing("process_vm_readv", FunctionDescriptor.of(JAVA_LONG,
            JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle WRITEV = Downcalls.capturing("process_vm_writev", FunctionDescriptor.of(JAVA_LONG,
            JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG));

    /** Two {@code struct iovec}s per thread: the local range, then the remote one. */
    private static final ThreadLocal<MemorySegment> IOVECS = ThreadLocal.withInitial(() -> Arena.ofAuto()
            .allocate(Iovec.LAYOUT, 2));

    public static final int EPERM = Errno.EPERM;
    public static final int ESRCH = Errno.ESRCH;
    public static final int EFAULT = Errno.EFAULT;

    private CrossMemory() {
    }

    /** Copies {@code length} bytes at {@code remote} in process {@code pid} to {@code local}: bytes copied, or -errno. */
    public static long read(int pid, long local, long remote, long length) {
        return call(READV, pid, local, remote, length);
    }

    /** Copies {@code length} bytes at {@code local} to {@code remote} in process {@code pid}: bytes copied, or -errno. */
    public static long write(int pid, long local, long remote, long length) {
        return call(WRITEV, pid, local, remote, length);
    }

    private static long call(MethodHandle h, int pid, long local, long remote, long length) {
        MemorySegment iov = IOVECS.get();
        Iovec.set(iov, 0, local, length);
        Iovec.set(iov, 1, remote, length);
        MemorySegment state = Downcalls.threadState();
        long r;
        try {
            r = (long) h.invokeExact(state, pid, iov, 1L, iov.asSlice(Iovec.SIZE, Iovec.SIZE), 1L, 0L);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        return r >= 0 ? r : -Downcalls.errno(state);
    }
}
