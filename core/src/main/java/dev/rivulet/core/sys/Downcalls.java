package dev.rivulet.core.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.GroupLayout;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Optional;

/**
 * Linking libc functions, and the {@code errno} capture every binding shares.
 *
 * <p>Every call that reports failure through {@code errno} is linked with
 * {@code Linker.Option.captureCallState("errno")}: the JVM copies errno into a caller-supplied segment right after
 * the native call returns, before anything else (GC, another downcall) can clobber it. A second downcall to read
 * {@code errno} afterwards would not be reliable. The capture segment is the extra first argument of those handles;
 * {@link #threadState()} gives each thread one, {@link #errnoState(Arena)} one with an owner's lifetime.
 */
public final class Downcalls {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();

    /** Layout of the capture segment; on Linux it holds the single int {@code errno}. */
    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    /**
     * One capture segment per thread. Allocated once per thread from an automatic arena (freed with the thread), so
     * steady-state calls do not allocate.
     */
    private static final ThreadLocal<MemorySegment> THREAD_STATE =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(CAPTURE_LAYOUT));

    private Downcalls() {
    }

    /** The address of libc function {@code name}; {@link UnsatisfiedLinkError} when libc has none. */
    public static MemorySegment symbol(String name) {
        return LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no symbol " + name));
    }

    /** Whether libc exports {@code name}. */
    public static boolean hasSymbol(String name) {
        return LIBC.find(name).isPresent();
    }

    /** A handle on libc function {@code name} that takes the errno capture segment as its first argument. */
    public static MethodHandle capturing(String name, FunctionDescriptor descriptor, Linker.Option... extra) {
        return capturing(symbol(name), descriptor, extra);
    }

    /**
     * A handle on the function at {@code symbol} (of any library) that takes the errno capture segment as its first
     * argument; {@code extra} adds options such as {@link Linker.Option#firstVariadicArg(int)}.
     */
    @SuppressWarnings("restricted") // downcallHandle: the modules run with --enable-native-access
    public static MethodHandle capturing(MemorySegment symbol, FunctionDescriptor descriptor,
            Linker.Option... extra) {
        Linker.Option[] options = new Linker.Option[extra.length + 1];
        options[0] = CAPTURE_ERRNO;
        System.arraycopy(extra, 0, options, 1, extra.length);
        return LINKER.downcallHandle(symbol, descriptor, options);
    }

    /** A handle on libc function {@code name} for calls that report no errno. */
    public static MethodHandle plain(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        return plain(symbol(name), descriptor, options);
    }

    /** A handle on the function at {@code symbol}, for calls that report no errno. */
    @SuppressWarnings("restricted") // downcallHandle, as above
    public static MethodHandle plain(MemorySegment symbol, FunctionDescriptor descriptor, Linker.Option... options) {
        return LINKER.downcallHandle(symbol, descriptor, options);
    }

    /** A handle on libc function {@code name} where libc has it (not every libc is glibc). */
    public static Optional<MethodHandle> optional(String name, FunctionDescriptor descriptor) {
        return LIBC.find(name).map(address -> plain(address, descriptor));
    }

    /** This thread's capture segment. */
    public static MemorySegment threadState() {
        return THREAD_STATE.get();
    }

    /** A capture segment owned by {@code arena}, for a caller that keeps its own (a ring, a waiter). */
    public static MemorySegment errnoState(Arena arena) {
        return arena.allocate(CAPTURE_LAYOUT);
    }

    /** The errno value the last capturing call on {@code state} stored. */
    public static int errno(MemorySegment state) {
        return (int) ERRNO.get(state, 0L);
    }

    /** Byte offset of a member given by its path (e.g. {@code "wr", "rdma", "rkey"}), for a struct's constants. */
    public static long offset(GroupLayout layout, String... path) {
        MemoryLayout.PathElement[] elements = new MemoryLayout.PathElement[path.length];
        for (int i = 0; i < path.length; i++) {
            elements[i] = MemoryLayout.PathElement.groupElement(path[i]);
        }
        return layout.byteOffset(elements);
    }

    /**
     * Downcall handles declare {@code Throwable}; nothing checked can actually come out of them. Passes unchecked
     * ones on as they are.
     */
    public static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            throw r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        throw new IllegalStateException("unexpected exception from a downcall", t);
    }
}
