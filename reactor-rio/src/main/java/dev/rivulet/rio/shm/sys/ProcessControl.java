package dev.rivulet.rio.shm.sys;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The process control the transport's hardening uses: {@code prctl(PR_SET_DUMPABLE)}, which decides whether
 * processes of the same user may open this one's {@code /proc/<pid>/fd}, {@code mem} and attach to it. (Keeping a
 * descriptor out of programs this process runs is {@link dev.rivulet.core.sys.Descriptors#closeOnExec}.)
 */
public final class ProcessControl {

    private static final int PR_SET_DUMPABLE = 4;
    private static final int PR_GET_DUMPABLE = 3;

    /** {@code int prctl(int option, unsigned long arg2, ...)}: the rest of the arguments read as longs. */
    private static final MethodHandle PRCTL = Downcalls.capturing("prctl", FunctionDescriptor.of(JAVA_INT, JAVA_INT,
            JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.firstVariadicArg(1));

    private ProcessControl() {
    }

    /** Whether this process is dumpable: whether processes of its user may read its descriptors and memory. */
    public static boolean isDumpable() {
        return prctl(PR_GET_DUMPABLE, 0) == 1;
    }

    /**
     * Makes this process non-dumpable: from now on only processes with {@code CAP_SYS_PTRACE} open its
     * {@code /proc/<pid>/fd/*}, {@code mem} and {@code map_files}, copy with {@code process_vm_*} or attach, and it
     * writes no core dump. It holds until the process runs another program.
     *
     * @throws IllegalStateException when the kernel refuses (it does not, for a process lowering itself)
     */
    public static void makeNonDumpable() {
        int r = prctl(PR_SET_DUMPABLE, 0);
        if (r != 0) {
            throw new IllegalStateException("prctl(PR_SET_DUMPABLE, 0) failed: errno " + -r);
        }
    }

    private static int prctl(int option, long arg) {
        try {
            MemorySegment state = Downcalls.threadState();
            int r = (int) PRCTL.invokeExact(state, option, arg, 0L, 0L, 0L);
            return r >= 0 ? r : -Downcalls.errno(state);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
