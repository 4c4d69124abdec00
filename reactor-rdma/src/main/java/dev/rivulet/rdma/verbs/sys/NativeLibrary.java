package dev.rivulet.rdma.verbs.sys;

import dev.rivulet.core.sys.Downcalls;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.function.Function;

/**
 * One copy of a shared library opened for binding, the way {@link Ibverbs} and {@link Rdmacm} bind theirs: opened
 * with the global arena (never unloaded, so the bound handles stay valid for the life of the JVM), each function
 * looked up by its default symbol version and linked as an ordinary downcall or with {@code errno} captured. A
 * missing function fails with an {@link UnsatisfiedLinkError} naming it, so a binding can say which one a library
 * lacks.
 */
final class NativeLibrary {

    private final SymbolLookup lookup;

    private NativeLibrary(SymbolLookup lookup) {
        this.lookup = lookup;
    }

    /** One attempt to load and bind a copy of a library: its bound functions ({@code api}), or why not. */
    record Attempt<A>(A api, String failure) {
    }

    /**
     * Opens {@code library} (a soname or a path) and binds its functions with {@code bind}. A library that cannot be
     * opened or lacks a function is no error here but a failure that says why: {@code cannot load <library>
     * (<installHint>): <dlopen's reason>}, or {@code cannot bind <library>: no symbol <name><bindHint>}. So a
     * binding's class loads on any host, and says why it cannot be used.
     */
    static <A> Attempt<A> attempt(String library, String installHint, String bindHint,
                                  Function<NativeLibrary, A> bind) {
        NativeLibrary lib;
        try {
            lib = open(library);
        } catch (IllegalArgumentException e) {
            return new Attempt<>(null, "cannot load " + library + " (" + installHint + "): " + e.getMessage());
        }
        try {
            return new Attempt<>(bind.apply(lib), null);
        } catch (UnsatisfiedLinkError e) {
            return new Attempt<>(null, "cannot bind " + library + ": " + e.getMessage() + bindHint);
        }
    }

    /**
     * Opens {@code library}.
     *
     * @throws IllegalArgumentException when it cannot be opened: how {@link SymbolLookup#libraryLookup} reports a
     *                                  failed {@code dlopen} ("Cannot open library: ...")
     */
    @SuppressWarnings("restricted") // libraryLookup; the module runs with --enable-native-access
    private static NativeLibrary open(String library) {
        return new NativeLibrary(SymbolLookup.libraryLookup(library, Arena.global()));
    }

    /** An ordinary downcall to the function {@code name}. */
    MethodHandle plain(String name, FunctionDescriptor d) {
        return VerbsDispatch.downcall(find(name), d);
    }

    /** A downcall to the function {@code name} capturing {@code errno} ({@link Downcalls#capturing}). */
    MethodHandle errno(String name, FunctionDescriptor d) {
        return Downcalls.capturing(find(name), d);
    }

    private MemorySegment find(String name) {
        return lookup.find(name).orElseThrow(() -> new UnsatisfiedLinkError("no symbol " + name));
    }
}
