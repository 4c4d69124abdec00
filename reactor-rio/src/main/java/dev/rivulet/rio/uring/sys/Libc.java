package dev.rivulet.rio.uring.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Optional;

/**
 * The libc entry points the io_uring layer needs, and the errno plumbing every capturing call shares.
 *
 * <p>Every call that reports failure through {@code errno} is linked with
 * {@code Linker.Option.captureCallState("errno")}: the JVM copies errno into a caller-supplied segment right after
 * the native call returns, before anything else (GC, another downcall) can clobber it. A second downcall to read
 * {@code errno} afterwards would not be reliable. The capture segment is the extra first argument of those handles.
 */
final class Libc {

    static final int PROT_READ = 0x1;
    static final int PROT_WRITE = 0x2;
    static final int MAP_SHARED = 0x01;
    static final int MAP_PRIVATE = 0x02;
    static final int MAP_ANONYMOUS = 0x20;
    static final int MAP_POPULATE = 0x08000;
    /** {@code MAP_FAILED}, i.e. {@code (void *) -1}. */
    static final long MAP_FAILED = -1L;

    static final Linker LINKER = Linker.nativeLinker();
    static final SymbolLookup LOOKUP = LINKER.defaultLookup();

    /** Layout of the capture segment; on Linux it holds the single int {@code errno}. */
    static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO =
            CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    /**
     * One capture segment per thread for the static wrappers. Allocated once per thread from an automatic arena
     * (freed with the thread), so steady-state calls do not allocate. The ring keeps its own segment instead.
     */
    private static final ThreadLocal<MemorySegment> THREAD_STATE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE_LAYOUT));

    private static final MethodHandle MMAP = capturing("mmap",
            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG));
    private static final MethodHandle MUNMAP = capturing("munmap",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle CLOSE = capturing("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle READ = capturing("read",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
    private static final MethodHandle WRITE = capturing("write",
            FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));

    // glibc >= 2.32: thread-safe, locale-independent, return pointers into static tables (never freed).
    private static final Optional<MethodHandle> STRERRORDESC_NP =
            plain("strerrordesc_np", FunctionDescriptor.of(ADDRESS, JAVA_INT));
    private static final Optional<MethodHandle> STRERRORNAME_NP =
            plain("strerrorname_np", FunctionDescriptor.of(ADDRESS, JAVA_INT));

    private Libc() {
    }

    @SuppressWarnings("restricted") // downcallHandle: the module runs with --enable-native-access
    static MethodHandle capturing(String name, FunctionDescriptor descriptor, Linker.Option... extra) {
        Linker.Option[] options = new Linker.Option[extra.length + 1];
        options[0] = CAPTURE_ERRNO;
        System.arraycopy(extra, 0, options, 1, extra.length);
        return LINKER.downcallHandle(symbol(name), descriptor, options);
    }

    @SuppressWarnings("restricted") // downcallHandle, as above
    static Optional<MethodHandle> plain(String name, FunctionDescriptor descriptor) {
        return LOOKUP.find(name).map(address -> LINKER.downcallHandle(address, descriptor));
    }

    static MemorySegment symbol(String name) {
        return LOOKUP.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no symbol " + name));
    }

    /** This thread's capture segment, for the static wrappers. */
    static MemorySegment threadState() {
        return THREAD_STATE.get();
    }

    /** The errno value the last capturing call on {@code state} stored. */
    static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    static MemorySegment mmap(long length, int prot, int flags, int fd, long offset) {
        MemorySegment state = threadState();
        MemorySegment address;
        try {
            address = (MemorySegment) MMAP.invokeExact(state, MemorySegment.NULL, length, prot, flags, fd, offset);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        if (address.address() == MAP_FAILED) {
            throw new ErrnoException("mmap", errno(state));
        }
        return address;
    }

    /** {@code munmap}; returns 0 or {@code -errno} (it runs from arena cleanups, where throwing helps nobody). */
    static int munmap(long address, long length) {
        MemorySegment state = threadState();
        int r;
        try {
            r = (int) MUNMAP.invokeExact(state, MemorySegment.ofAddress(address), length);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return r == 0 ? 0 : -errno(state);
    }

    /** {@code close(fd)}; returns 0 or {@code -errno}. */
    static int close(int fd) {
        MemorySegment state = threadState();
        int r;
        try {
            r = (int) CLOSE.invokeExact(state, fd);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return r == 0 ? 0 : -errno(state);
    }

    /** {@code read(fd, buf, buf.byteSize())}; returns bytes read or {@code -errno}. */
    static long read(int fd, MemorySegment buf) {
        MemorySegment state = threadState();
        long r;
        try {
            r = (long) READ.invokeExact(state, fd, buf, buf.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return r >= 0 ? r : -errno(state);
    }

    /** {@code write(fd, buf, buf.byteSize())}; returns bytes written or {@code -errno}. */
    static long write(int fd, MemorySegment buf) {
        MemorySegment state = threadState();
        long r;
        try {
            r = (long) WRITE.invokeExact(state, fd, buf, buf.byteSize());
        } catch (Throwable t) {
            throw rethrow(t);
        }
        return r >= 0 ? r : -errno(state);
    }

    /** {@code strerrorname_np}, e.g. {@code "EAGAIN"}; empty when libc lacks it or the number is unknown. */
    static Optional<String> errnoName(int errno) {
        return cString(STRERRORNAME_NP, errno);
    }

    /** {@code strerrordesc_np}, e.g. {@code "Resource temporarily unavailable"}; empty when unavailable. */
    static Optional<String> errnoDescription(int errno) {
        return cString(STRERRORDESC_NP, errno);
    }

    @SuppressWarnings("restricted") // reinterpret of a NUL-terminated string from libc's static tables
    private static Optional<String> cString(Optional<MethodHandle> function, int errno) {
        if (function.isEmpty()) {
            return Optional.empty();
        }
        try {
            MemorySegment p = (MemorySegment) function.get().invokeExact(errno);
            if (p.address() == 0) {
                return Optional.empty();
            }
            // A zero-length pointer result; widen it just enough to read the NUL-terminated text.
            return Optional.of(p.reinterpret(4096).getString(0));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Downcall handles declare {@code Throwable}; nothing checked can actually come out of them. */
    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException(t);
    }
}
