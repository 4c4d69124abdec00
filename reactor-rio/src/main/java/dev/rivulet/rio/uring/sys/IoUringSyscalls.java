package dev.rivulet.rio.uring.sys;

import dev.rivulet.core.sys.Downcalls;
import dev.rivulet.core.sys.ErrnoException;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;

/**
 * The three io_uring system calls, made through libc's variadic {@code long syscall(long number, ...)}; glibc 2.36
 * has no wrappers for them.
 *
 * <p>Results follow the kernel convention: a non-negative value on success, {@code -errno} on failure (what
 * liburing's raw wrappers return). That keeps expected outcomes such as {@code -ETIME} or {@code -EINTR} off the
 * exception path; {@link dev.rivulet.core.sys.ErrnoException#check} turns the rest into exceptions.
 *
 * <p>Every variadic argument is passed as a 64-bit {@code JAVA_LONG}: glibc's {@code syscall} reads all six
 * arguments with {@code va_arg(ap, long)}, so a 32-bit {@code int} argument would leave the upper register half
 * undefined. Pointers travel as their address.
 *
 * <p>{@code io_uring_enter} can block for as long as its timeout; these handles are therefore not
 * {@code Linker.Option.critical}, and a virtual thread calling them pins its carrier.
 */
public final class IoUringSyscalls {

    /** {@code __NR_io_uring_setup}: the same number on every architecture with the unified syscall table. */
    public static final int NR_IO_URING_SETUP = 425;
    public static final int NR_IO_URING_ENTER = 426;
    public static final int NR_IO_URING_REGISTER = 427;

    // long syscall(long number, ...): the first argument is fixed, everything after it is variadic.
    private static final MethodHandle SYSCALL_2 = variadicSyscall(2);
    private static final MethodHandle SYSCALL_4 = variadicSyscall(4);
    private static final MethodHandle SYSCALL_6 = variadicSyscall(6);

    private IoUringSyscalls() {
    }

    private static MethodHandle variadicSyscall(int variadicArgs) {
        MemoryLayout[] args = new MemoryLayout[variadicArgs + 1]; // the syscall number plus its arguments
        Arrays.fill(args, JAVA_LONG); // all 64-bit, see the class comment
        return Downcalls.capturing("syscall", FunctionDescriptor.of(JAVA_LONG, args), Linker.Option.firstVariadicArg(1));
    }

    /**
     * {@code io_uring_setup(entries, params)}: the new ring's file descriptor, or {@code -errno}.
     * {@code params} must be a zeroed (apart from the inputs) {@link IoUringParams} segment; the kernel fills it.
     */
    public static int setup(int entries, MemorySegment params) {
        return setup(Downcalls.threadState(), entries, params);
    }

    static int setup(MemorySegment errnoState, int entries, MemorySegment params) {
        long r;
        try {
            r = (long) SYSCALL_2.invokeExact(errnoState, (long) NR_IO_URING_SETUP,
                    Integer.toUnsignedLong(entries), params.address());
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        return result(errnoState, r);
    }

    /**
     * {@code io_uring_enter(fd, toSubmit, minComplete, flags, arg, argSize)}: the number of SQEs consumed, or
     * {@code -errno}. {@code arg} is {@link MemorySegment#NULL}, a sigset, or with
     * {@link IoUringConstants#IORING_ENTER_EXT_ARG} an {@link IoUringGeteventsArg}.
     */
    public static int enter(int fd, int toSubmit, int minComplete, int flags, MemorySegment arg, long argSize) {
        return enter(Downcalls.threadState(), fd, toSubmit, minComplete, flags, arg, argSize);
    }

    static int enter(MemorySegment errnoState, int fd, int toSubmit, int minComplete, int flags,
                     MemorySegment arg, long argSize) {
        long r;
        try {
            r = (long) SYSCALL_6.invokeExact(errnoState, (long) NR_IO_URING_ENTER, (long) fd,
                    Integer.toUnsignedLong(toSubmit), Integer.toUnsignedLong(minComplete),
                    Integer.toUnsignedLong(flags), arg.address(), argSize);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        return result(errnoState, r);
    }

    /** {@code io_uring_register(fd, opcode, arg, nrArgs)}: an opcode-specific value, or {@code -errno}. */
    public static int register(int fd, int opcode, MemorySegment arg, int nrArgs) {
        return register(Downcalls.threadState(), fd, opcode, arg, nrArgs);
    }

    static int register(MemorySegment errnoState, int fd, int opcode, MemorySegment arg, int nrArgs) {
        long r;
        try {
            r = (long) SYSCALL_4.invokeExact(errnoState, (long) NR_IO_URING_REGISTER, (long) fd,
                    Integer.toUnsignedLong(opcode), arg.address(), Integer.toUnsignedLong(nrArgs));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        return result(errnoState, r);
    }

    private static int result(MemorySegment errnoState, long r) {
        // syscall() returns -1 and sets errno on failure; every success value of these three fits in an int.
        return r == -1 ? -Downcalls.errno(errnoState) : (int) r;
    }
}
