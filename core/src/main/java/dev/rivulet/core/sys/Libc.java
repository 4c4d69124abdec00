package dev.rivulet.core.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * The process-wide libc functions the bindings share: the C heap, the C environment, versioned symbol lookup,
 * {@code syscall(2)} for calls glibc has no wrapper for, and {@code clock_gettime}. Descriptors are in
 * {@link Descriptors}, mappings in {@link Mappings}, sockets in {@link LibcSockets}.
 *
 * <p>Native libraries that free what Java gives them ({@code fi_freeinfo} frees the strings and addresses inside an
 * {@code fi_info}) must get memory from libc's allocator, never from an {@link Arena}: {@link #strdup} and
 * {@link #copyOf} are for exactly that.
 */
public final class Libc {

    /** {@code CLOCK_MONOTONIC}. */
    public static final int CLOCK_MONOTONIC = 1;

    private static final int RTLD_LAZY = 0x1;
    private static final int RTLD_NOLOAD = 0x4;

    private static final MethodHandle STRDUP = Downcalls.plain("strdup", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle MALLOC = Downcalls.plain("malloc", FunctionDescriptor.of(ADDRESS, JAVA_LONG));
    private static final MethodHandle FREE = Downcalls.plain("free", FunctionDescriptor.ofVoid(ADDRESS));
    private static final Optional<MethodHandle> MALLOC_TRIM =
            Downcalls.optional("malloc_trim", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));
    private static final MethodHandle SETENV = Downcalls.plain("setenv",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    /** {@code long syscall(long number, long a1, long a2, long a3, long a4, long a5)}, variadic from a1. */
    private static final MethodHandle SYSCALL = Downcalls.capturing("syscall", FunctionDescriptor.of(JAVA_LONG,
            JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG), Linker.Option.firstVariadicArg(1));
    private static final MethodHandle CLOCK_GETTIME = Downcalls.capturing("clock_gettime",
            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));

    private Libc() {
    }

    // ---- C heap ---------------------------------------------------------------------------------------------

    /** A libc-owned copy of {@code s}; release with {@link #free} or let the library that takes it do it. */
    public static MemorySegment strdup(String s) {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment copy = (MemorySegment) STRDUP.invokeExact(scratch.allocateFrom(s));
            if (copy.address() == 0) {
                throw new OutOfMemoryError("strdup failed");
            }
            return copy;
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** A libc-owned copy of {@code bytes}, sized to them. */
    @SuppressWarnings("restricted") // reinterpret: malloc returned at least that many bytes
    public static MemorySegment copyOf(MemorySegment bytes) {
        MemorySegment copy;
        try {
            copy = (MemorySegment) MALLOC.invokeExact(Math.max(1L, bytes.byteSize()));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (copy.address() == 0) {
            throw new OutOfMemoryError("malloc(" + bytes.byteSize() + ") failed");
        }
        copy = copy.reinterpret(bytes.byteSize());
        copy.copyFrom(bytes);
        return copy;
    }

    /** {@code free(p)}; NULL is a no-op, as in C. */
    public static void free(MemorySegment p) {
        try {
            FREE.invokeExact(p);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code malloc_trim(0)} where libc has it (glibc): gives the free memory of every malloc arena back to the
     * system. Returns whether any was given back; false where there is no such function.
     */
    public static boolean mallocTrim() {
        if (MALLOC_TRIM.isEmpty()) {
            return false;
        }
        try {
            return (int) MALLOC_TRIM.get().invokeExact(0L) != 0;
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    // ---- Environment and symbols ----------------------------------------------------------------------------

    /**
     * {@code setenv(name, value, 0)}: sets a variable in the C environment unless the user already set it. Only the
     * C side sees it; Java's {@code System.getenv} is a snapshot taken at startup.
     */
    public static void setenvIfAbsent(String name, String value) {
        try (Arena a = Arena.ofConfined()) {
            int rc = (int) SETENV.invokeExact(a.allocateFrom(name), a.allocateFrom(value), 0);
            if (rc != 0) {
                throw new IllegalStateException("setenv(" + name + ") failed");
            }
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** Whether libc offers {@code dlvsym} (glibc; since 2.34 it lives in libc.so.6 itself). */
    public static boolean hasDlvsym() {
        return Downcalls.hasSymbol("dlvsym") && Downcalls.hasSymbol("dlopen");
    }

    /**
     * {@code dlvsym(dlopen(library, RTLD_NOLOAD), name, version)}: the address of one version of a symbol in a
     * library that is already loaded, or empty when libc has no {@code dlvsym} (not glibc) or the library lacks
     * that version node.
     */
    public static Optional<MemorySegment> versionedSymbol(String library, String name, String version) {
        if (!hasDlvsym()) {
            return Optional.empty();
        }
        MethodHandle open = Downcalls.plain("dlopen", FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
        MethodHandle vsym = Downcalls.plain("dlvsym", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS));
        try (Arena scratch = Arena.ofConfined()) {
            // RTLD_NOLOAD: only a handle to the copy SymbolLookup.libraryLookup already mapped; the reference it
            // adds is never dropped, matching the global lifetime of that lookup.
            MemorySegment handle = (MemorySegment) open.invokeExact(scratch.allocateFrom(library),
                    RTLD_LAZY | RTLD_NOLOAD);
            if (handle.address() == 0) {
                throw new UnsatisfiedLinkError("dlopen(" + library + ", RTLD_NOLOAD) found no loaded copy");
            }
            MemorySegment symbol = (MemorySegment) vsym.invokeExact(handle, scratch.allocateFrom(name),
                    scratch.allocateFrom(version));
            return symbol.address() == 0 ? Optional.empty() : Optional.of(symbol);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    // ---- System calls and clocks ----------------------------------------------------------------------------

    /**
     * Runs system call {@code number}; returns its result, or {@code -errno} when it failed. Arguments go as
     * {@code long}s: {@code syscall} reads each variadic argument as a {@code long}, so an {@code int} passed as
     * such could arrive with stale upper bits.
     */
    public static long syscall(long number, long a1, long a2, long a3, long a4, long a5) {
        MemorySegment state = Downcalls.threadState();
        long r;
        try {
            r = (long) SYSCALL.invokeExact(state, number, a1, a2, a3, a4, a5);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        return r >= 0 ? r : -Downcalls.errno(state);
    }

    /** {@code clock_gettime(clock, timespec)} into a {@link Timespec}. */
    public static void clockGettime(int clock, MemorySegment timespec) {
        MemorySegment state = Downcalls.threadState();
        int r;
        try {
            r = (int) CLOCK_GETTIME.invokeExact(state, clock, timespec);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (r != 0) {
            throw new ErrnoException("clock_gettime", Downcalls.errno(state));
        }
    }
}
