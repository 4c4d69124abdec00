package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * The few libc functions the binding needs.
 *
 * <p>{@code fi_freeinfo} calls {@code free()} on the strings and addresses inside an {@code fi_info}
 * ({@code fabric_attr->prov_name}, {@code dest_addr}, ...). Anything Java stores there must therefore come from
 * libc's allocator, never from an {@link Arena}; the struct setters use {@link #strdup} and {@link #malloc} for
 * exactly that. {@code dlopen}/{@code dlvsym} let {@link Libfabric} pin symbol versions.
 */
final class Libc {

    private static final int RTLD_LAZY = 0x1;
    private static final int RTLD_NOLOAD = 0x4;

    private static final SymbolLookup LIBC = Linker.nativeLinker().defaultLookup();

    private static final MethodHandle STRDUP = bind("strdup", FunctionDescriptor.of(ADDRESS, ADDRESS));
    private static final MethodHandle MALLOC = bind("malloc", FunctionDescriptor.of(ADDRESS, JAVA_LONG));
    private static final MethodHandle FREE = bind("free", FunctionDescriptor.ofVoid(ADDRESS));
    private static final MethodHandle SETENV = bind("setenv", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS,
            JAVA_INT));

    /**
     * {@code setenv(name, value, 0)}: sets a variable in the C environment unless the user already set it. Only the
     * C side sees it; Java's {@code System.getenv} is a snapshot taken at startup.
     */
    static void setenvIfAbsent(String name, String value) {
        try (Arena a = Arena.ofConfined()) {
            int rc = (int) SETENV.invokeExact(a.allocateFrom(name), a.allocateFrom(value), 0);
            if (rc != 0) {
                throw new IllegalStateException("setenv(" + name + ") failed");
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private Libc() {
    }

    /** A libc-owned copy of {@code s}; release with {@link #free} or let {@code fi_freeinfo} do it. */
    static MemorySegment strdup(String s) {
        try (Arena scratch = Arena.ofConfined()) {
            MemorySegment copy = (MemorySegment) STRDUP.invokeExact(scratch.allocateFrom(s));
            if (copy.address() == 0) {
                throw new OutOfMemoryError("strdup failed");
            }
            return copy;
        } catch (Throwable t) {
            throw Dispatch.rethrow(t);
        }
    }

    /** A libc-owned copy of {@code bytes}, sized to them. */
    static MemorySegment copyOf(MemorySegment bytes) {
        MemorySegment copy;
        try {
            copy = (MemorySegment) MALLOC.invokeExact(Math.max(1L, bytes.byteSize()));
        } catch (Throwable t) {
            throw Dispatch.rethrow(t);
        }
        if (copy.address() == 0) {
            throw new OutOfMemoryError("malloc(" + bytes.byteSize() + ") failed");
        }
        copy = Dispatch.sized(copy, bytes.byteSize());
        copy.copyFrom(bytes);
        return copy;
    }

    /** {@code free(p)}; NULL is a no-op, as in C. */
    static void free(MemorySegment p) {
        try {
            FREE.invokeExact(p);
        } catch (Throwable t) {
            throw Dispatch.rethrow(t);
        }
    }

    /**
     * {@code malloc_trim(0)} where libc has it (glibc): gives the free memory of every malloc arena back to the
     * system. Returns whether any was given back; false where there is no such function.
     */
    static boolean mallocTrim() {
        if (MALLOC_TRIM == null) {
            return false;
        }
        try {
            return (int) MALLOC_TRIM.invokeExact(0L) != 0;
        } catch (Throwable t) {
            throw Dispatch.rethrow(t);
        }
    }

    private static final MethodHandle MALLOC_TRIM = LIBC.find("malloc_trim")
            .map(s -> Dispatch.downcall(s, FunctionDescriptor.of(JAVA_INT, JAVA_LONG))).orElse(null);

    /** Whether libc offers {@code dlvsym} (glibc; since 2.34 it lives in libc.so.6 itself). */
    static boolean hasDlvsym() {
        return LIBC.find("dlvsym").isPresent() && LIBC.find("dlopen").isPresent();
    }

    /**
     * {@code dlvsym(dlopen(library, RTLD_NOLOAD), name, version)}: the address of one version of a symbol in a
     * library that is already loaded, or empty when libc has no {@code dlvsym} (not glibc) or the library lacks
     * that version node.
     */
    static Optional<MemorySegment> versionedSymbol(String library, String name, String version) {
        if (!hasDlvsym()) {
            return Optional.empty();
        }
        MethodHandle open = Dispatch.downcall(LIBC.find("dlopen").orElseThrow(),
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT));
        MethodHandle vsym = Dispatch.downcall(LIBC.find("dlvsym").orElseThrow(),
                FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS));
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
            throw Dispatch.rethrow(t);
        }
    }

    private static MethodHandle bind(String name, FunctionDescriptor descriptor) {
        MemorySegment symbol = LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no " + name));
        return Dispatch.downcall(symbol, descriptor);
    }
}
