package dev.rivulet.core.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/** {@code mmap}/{@code munmap} and the page size: memory that goes to and from the system, not the C heap. */
public final class Mappings {

    public static final int PROT_READ = 0x1;
    public static final int PROT_WRITE = 0x2;
    public static final int MAP_SHARED = 0x01;
    public static final int MAP_PRIVATE = 0x02;
    public static final int MAP_ANONYMOUS = 0x20;
    public static final int MAP_POPULATE = 0x08000;
    /** {@code MAP_FAILED}, i.e. {@code (void *) -1}. */
    public static final long MAP_FAILED = -1L;

    private static final int SC_PAGESIZE = 30;

    private static final MethodHandle MMAP = Downcalls.capturing("mmap",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle MUNMAP = Downcalls.capturing("munmap",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle SYSCONF = Downcalls.plain("sysconf", FunctionDescriptor.of(JAVA_LONG, JAVA_INT));

    private Mappings() {
    }

    /** {@code mmap(NULL, length, prot, flags, fd, offset)}: the zero-length address of the mapping. */
    public static MemorySegment mmap(long length, int prot, int flags, int fd, long offset) {
        MemorySegment state = Downcalls.threadState();
        MemorySegment address;
        try {
            address = (MemorySegment) MMAP.invokeExact(state, MemorySegment.NULL, length, prot, flags, fd, offset);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (address.address() == MAP_FAILED) {
            throw new ErrnoException("mmap", Downcalls.errno(state));
        }
        return address;
    }

    /** {@code munmap}; returns 0 or {@code -errno} (it runs from arena cleanups, where throwing helps nobody). */
    public static int munmap(long address, long length) {
        MemorySegment state = Downcalls.threadState();
        int r;
        try {
            r = (int) MUNMAP.invokeExact(state, MemorySegment.ofAddress(address), length);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        return r == 0 ? 0 : -Downcalls.errno(state);
    }

    /** {@code mmap} of {@code fd} (or anonymous memory with fd -1), unmapped when {@code arena} closes. */
    @SuppressWarnings("restricted") // reinterpret: the size is the one we asked mmap for
    public static MemorySegment map(long length, int prot, int flags, int fd, long offset, Arena arena) {
        MemorySegment raw = mmap(length, prot, flags, fd, offset);
        long address = raw.address();
        return raw.reinterpret(length, arena, unused -> munmap(address, length));
    }

    /**
     * {@code length} bytes of private anonymous memory, unmapped when {@code arena} closes: for buffers that must go
     * back to the system when their owner does. Memory from the C heap stays with the allocator after it is freed
     * (glibc raises its mmap threshold to the size of the last mapped block freed, so later blocks of that size come
     * from its arenas and are kept), and a listener that held a thousand connections' buffers would keep them for
     * good. The pages are committed when first touched.
     */
    public static MemorySegment anonymous(long length, Arena arena) {
        return map(length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0, arena);
    }

    /** {@code sysconf(_SC_PAGESIZE)}: which windows a peer can map without reaching the bytes beside them. */
    public static long pageSize() {
        return PageSize.VALUE;
    }

    /** Asked once, on first use. */
    private static final class PageSize {
        static final long VALUE = sysconf(SC_PAGESIZE);
    }

    private static long sysconf(int name) {
        try {
            long r = (long) SYSCONF.invokeExact(name);
            return r > 0 ? r : 4096;
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }
}
