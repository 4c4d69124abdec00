package dev.rivulet.rio.shm.sys;

import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/** The page size, which decides which windows a peer can map without reaching bytes beside them. */
public final class Memory {

    private static final int SC_PAGESIZE = 30;
    private static final MethodHandle SYSCONF = Syscalls.capturing("sysconf", FunctionDescriptor.of(JAVA_LONG,
            JAVA_INT));
    private static final long PAGE_SIZE = sysconf(SC_PAGESIZE);

    private Memory() {
    }

    /** {@code sysconf(_SC_PAGESIZE)}. */
    public static long pageSize() {
        return PAGE_SIZE;
    }

    private static long sysconf(int name) {
        try {
            long r = (long) SYSCONF.invokeExact(Syscalls.threadState(), name);
            return r > 0 ? r : 4096;
        } catch (Throwable t) {
            throw Syscalls.rethrow(t);
        }
    }
}
