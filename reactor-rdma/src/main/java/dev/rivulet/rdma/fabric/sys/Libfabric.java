package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;
import dev.rivulet.core.sys.Libc;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Entry point of the binding: loads {@code libfabric.so.1} and binds the functions it really exports
 * ({@code fi_getinfo}, {@code fi_freeinfo}, {@code fi_dupinfo}, {@code fi_fabric}, {@code fi_version},
 * {@code fi_strerror}, {@code fi_tostr_r}). Everything else in libfabric's API is header-inline and lives on the
 * object types ({@link FidFabric}, {@link FidDomain}, {@link FidEp}, {@link FidCq}, {@link FidAv}, {@link FidMr},
 * {@link Fid}).
 *
 * <p><b>Loading.</b> The library is opened lazily on first use with {@link SymbolLookup#libraryLookup(String, Arena)}
 * and the global arena (it is never unloaded). If that fails, {@link #isAvailable()} is false,
 * {@link #unavailableReason()} says why, and every call here throws {@link UnsupportedOperationException}.
 * {@code -Ddev.rivulet.libfabric.library=/path/to/libfabric.so.1} selects another copy.
 *
 * <p><b>Symbol versions.</b> libfabric versions its exported symbols, and a plain {@code dlsym} binds whichever
 * version is the library's default. In 1.17 that is {@code fi_getinfo@@FABRIC_1.3}, the ABI whose {@code fi_info}
 * layout {@link FiInfo} describes; libfabric 1.20 moved the default to {@code FABRIC_1.7} (a longer
 * {@code fi_domain_attr}) and 2.x further, keeping {@code FABRIC_1.3} as a compatibility entry. So the functions
 * that exchange {@code fi_info} are resolved with glibc's {@code dlvsym} at the version these layouts were
 * written for ({@link #PINNED_VERSIONS}); with a libc lacking {@code dlvsym} the default version is used.
 *
 * <p><b>Request version.</b> Pass {@link #apiVersion()} to {@code fi_getinfo}: the 1.17 semantics this binding
 * was written against, or the runtime's own version if that is older. Asking for a version newer than the
 * library fails with {@code -FI_ENOSYS}, and below 1.5 {@code mr_mode} bits are not honoured, so runtimes older
 * than {@link #MIN_RUNTIME_VERSION} count as unavailable.
 */
public final class Libfabric {

    /** Soname of the library, as Debian's libfabric1 package installs it. */
    public static final String LIBRARY = "libfabric.so.1";

    /** {@code FI_VERSION(1, 17)}: the headers the layouts of this package were taken from. */
    public static final int BINDING_VERSION = fiVersion(FiConstants.FI_MAJOR_VERSION, FiConstants.FI_MINOR_VERSION);

    /**
     * {@code FI_VERSION(1, 5)}: first version with {@code mr_mode} bits and the current {@code fi_cq_readerr}
     * contract.
     */
    public static final int MIN_RUNTIME_VERSION = fiVersion(1, 5);

    /** Exported symbol → the version node whose ABI the Java layouts match. */
    public static final Map<String, String> PINNED_VERSIONS = Map.of(
            "fi_version", "FABRIC_1.0",
            "fi_getinfo", "FABRIC_1.3",
            "fi_freeinfo", "FABRIC_1.3",
            "fi_dupinfo", "FABRIC_1.3",
            "fi_fabric", "FABRIC_1.1",
            "fi_strerror", "FABRIC_1.0",
            "fi_tostr_r", "FABRIC_1.4");

    private static final String LIBRARY_PROPERTY = "dev.rivulet.libfabric.library";

    private Libfabric() {
    }

    // ------------------------------------------------------------------------------------------------ versions

    /** {@code FI_VERSION(major, minor)}. */
    public static int fiVersion(int major, int minor) {
        return (major << 16) | minor;
    }

    /** {@code FI_MAJOR(version)}. */
    public static int fiMajor(int version) {
        return version >>> 16;
    }

    /** {@code FI_MINOR(version)}. */
    public static int fiMinor(int version) {
        return version & 0xFFFF;
    }

    /** "1.17" for {@code FI_VERSION(1, 17)}. */
    public static String versionString(int version) {
        return fiMajor(version) + "." + fiMinor(version);
    }

    // ------------------------------------------------------------------------------------------------ loading

    /** Whether the library loaded, has the pinned symbol versions and is at least {@link #MIN_RUNTIME_VERSION}. */
    public static boolean isAvailable() {
        return Loaded.FAILURE == null;
    }

    /** Why the library cannot be used, or empty when {@link #isAvailable()}. */
    public static Optional<String> unavailableReason() {
        return Optional.ofNullable(Loaded.FAILURE);
    }

    /** Throws {@link UnsupportedOperationException} with {@link #unavailableReason()} unless available. */
    public static void ensureAvailable() {
        api();
    }

    /** {@code fi_version()}: the runtime library's version, e.g. {@code 0x10011} for 1.17. */
    public static int runtimeVersion() {
        try {
            return (int) api().fiVersion.invokeExact();
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** The version to request from {@code fi_getinfo}: {@code min(BINDING_VERSION, fi_version())}. */
    public static int apiVersion() {
        return Math.min(BINDING_VERSION, runtimeVersion());
    }

    /**
     * How each exported function was bound, e.g. {@code fi_getinfo -> fi_getinfo@FABRIC_1.3}, for diagnostics.
     * Empty when unavailable.
     */
    public static Map<String, String> boundSymbols() {
        return Loaded.API == null ? Map.of() : Loaded.API.bindings;
    }

    // ------------------------------------------------------------------------------------------------ calls

    /**
     * {@code int fi_getinfo(uint32_t version, const char *node, const char *service, uint64_t flags,
     * const struct fi_info *hints, struct fi_info **info)}.
     *
     * @param node    C string or {@link MemorySegment#NULL}
     * @param service C string or {@link MemorySegment#NULL}
     * @param hints   an {@code fi_info} from {@link #allocinfo()} / {@link #dupinfo}, or NULL
     * @param info    receives the head of a list the caller must release with {@link #freeinfo}
     * @return 0, or a negative fabric errno ({@code -FI_ENODATA} when nothing matches)
     */
    public static int getinfo(int version, MemorySegment node, MemorySegment service, long flags,
                              MemorySegment hints, MemorySegment info) {
        try {
            return (int) api().getinfo.invokeExact(version, node, service, flags, hints, info);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code void fi_freeinfo(struct fi_info *info)}: frees the whole {@code next} chain, every attribute struct and
     * the strings/addresses they point to (with libc {@code free}). NULL is ignored.
     */
    public static void freeinfo(MemorySegment info) {
        if (info.address() == 0) {
            return;
        }
        try {
            api().freeinfo.invokeExact(info);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code struct fi_info *fi_dupinfo(const struct fi_info *info)}: a deep copy of one entry (not its
     * {@code next}), owned by the caller and released with {@link #freeinfo}.
     *
     * @return the copy, sized as {@link FiInfo#LAYOUT}
     * @throws OutOfMemoryError if libfabric returned NULL
     */
    public static MemorySegment dupinfo(MemorySegment info) {
        MemorySegment copy;
        try {
            copy = (MemorySegment) api().dupinfo.invokeExact(info);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
        if (copy.address() == 0) {
            throw new OutOfMemoryError("fi_dupinfo returned NULL");
        }
        return FiInfo.of(copy);
    }

    /**
     * {@code fi_allocinfo()}, the header's inline {@code fi_dupinfo(NULL)}: an empty {@code fi_info} with all
     * attribute structs allocated, for use as hints. Release with {@link #freeinfo}.
     */
    public static MemorySegment allocinfo() {
        return dupinfo(MemorySegment.NULL);
    }

    /**
     * {@code int fi_fabric(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context)}.
     *
     * @param attr   usually {@link FiInfo#fabricAttr} of an entry returned by {@link #getinfo}
     * @param fabric receives the {@code fid_fabric*}; wrap it with {@link FidFabric#of}
     */
    public static int fabric(MemorySegment attr, MemorySegment fabric, MemorySegment context) {
        try {
            return (int) api().fabric.invokeExact(attr, fabric, context);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code const char *fi_strerror(int errnum)} for a <em>positive</em> error number; pass {@code -ret}.
     * Works without the library (returns a generic text) so error paths never fail themselves.
     */
    public static String strerror(int errnum) {
        if (!isAvailable()) {
            return "fabric error " + errnum;
        }
        try {
            return Dispatch.string((MemorySegment) Loaded.API.strerror.invokeExact(errnum));
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /**
     * {@code fi_tostr_r(buf, len, data, type)}: libfabric's own rendering of a struct or value, e.g.
     * {@code tostr(info, FI_TYPE_INFO)} prints what {@code fi_info -v} prints. {@code data} points to the value,
     * not the value itself (for {@code FI_TYPE_CAPS} a {@code uint64_t*}); see {@link #tostr(long, int)}.
     */
    public static String tostr(MemorySegment data, int type) {
        try (Arena scratch = Arena.ofConfined()) {
            // fi_tostr_r truncates silently; 64 KiB holds a fully printed fi_info with room to spare.
            long len = 64 * 1024;
            MemorySegment buf = scratch.allocate(len);
            MemorySegment s = (MemorySegment) api().tostrR.invokeExact(buf, len, data, type);
            return Dispatch.string(s);
        } catch (Throwable t) {
            throw Downcalls.rethrow(t);
        }
    }

    /** {@link #tostr(MemorySegment, int)} for a value: 64-bit for flag words, {@code int} for enums. */
    public static String tostr(long value, int type) {
        try (Arena scratch = Arena.ofConfined()) {
            boolean wide = switch (type) {
                case FiConstants.FI_TYPE_CAPS, FiConstants.FI_TYPE_OP_FLAGS, FiConstants.FI_TYPE_MODE,
                     FiConstants.FI_TYPE_MSG_ORDER, FiConstants.FI_TYPE_CQ_EVENT_FLAGS -> true;
                default -> false;
            };
            MemorySegment data = wide ? scratch.allocateFrom(JAVA_LONG, value)
                    : scratch.allocateFrom(JAVA_INT, (int) value);
            return tostr(data, type);
        }
    }

    // ------------------------------------------------------------------------------------------------ internals

    private static Api api() {
        Api api = Loaded.API;
        if (api == null) {
            throw new UnsupportedOperationException("libfabric is not available: " + Loaded.FAILURE);
        }
        return api;
    }

    /** The bound functions; one immutable instance so the JIT can treat the handles as constants. */
    private record Api(MethodHandle fiVersion, MethodHandle getinfo, MethodHandle freeinfo, MethodHandle dupinfo,
                       MethodHandle fabric, MethodHandle strerror, MethodHandle tostrR,
                       Map<String, String> bindings) {
    }

    /** Lazy holder: touching {@link Libfabric} constants or version helpers never loads the library. */
    private static final class Loaded {
        static final Api API;
        static final String FAILURE;

        static {
            Api api = null;
            String failure;
            String library = System.getProperty(LIBRARY_PROPERTY, LIBRARY);
            try {
                api = bind(library);
                int runtime = (int) api.fiVersion.invokeExact();
                failure = runtime < MIN_RUNTIME_VERSION
                        ? library + " is libfabric " + versionString(runtime) + "; at least "
                          + versionString(MIN_RUNTIME_VERSION) + " is required"
                        : null;
            } catch (IllegalArgumentException e) {
                // libraryLookup reports a failed dlopen this way ("Cannot open library: ...").
                failure = "cannot load " + library + " (install libfabric1, or set -D" + LIBRARY_PROPERTY
                          + "): " + e.getMessage();
            } catch (Throwable t) {
                failure = "cannot bind " + library + ": " + t;
            }
            API = failure == null ? api : null;
            FAILURE = failure;
        }

        @SuppressWarnings("restricted") // libraryLookup; the module runs with --enable-native-access
        private static Api bind(String library) {
            // Debian's libfabric links the psm providers' libraries, and libinfinipath's constructor installs a
            // SIGSEGV handler at load time that replaces the JVM's: the JVM uses SIGSEGV for null checks and
            // safepoints, so the first one would kill the process ("terminated with signal 11"). The library skips
            // the handler when this is set before it loads.
            Libc.setenvIfAbsent("IPATH_NO_BACKTRACE", "1");
            // Per-endpoint provider memory in proportion to one peer; read by libfabric when it first initialises.
            ProviderParameters.applyDefaults();
            SymbolLookup lookup = SymbolLookup.libraryLookup(library, Arena.global());
            Map<String, String> bindings = new LinkedHashMap<>();
            return new Api(
                    Dispatch.downcall(symbol(lookup, library, "fi_version", bindings),
                            FunctionDescriptor.of(JAVA_INT)),
                    Dispatch.downcall(symbol(lookup, library, "fi_getinfo", bindings),
                            FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS)),
                    Dispatch.downcall(symbol(lookup, library, "fi_freeinfo", bindings),
                            FunctionDescriptor.ofVoid(ADDRESS)),
                    Dispatch.downcall(symbol(lookup, library, "fi_dupinfo", bindings),
                            FunctionDescriptor.of(ADDRESS, ADDRESS)),
                    Dispatch.downcall(symbol(lookup, library, "fi_fabric", bindings),
                            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS)),
                    Dispatch.downcall(symbol(lookup, library, "fi_strerror", bindings),
                            FunctionDescriptor.of(ADDRESS, JAVA_INT)),
                    Dispatch.downcall(symbol(lookup, library, "fi_tostr_r", bindings),
                            FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_INT)),
                    Map.copyOf(bindings));
        }

        private static MemorySegment symbol(SymbolLookup lookup, String library, String name,
                                            Map<String, String> bindings) {
            String version = PINNED_VERSIONS.get(name);
            Optional<MemorySegment> pinned = Libc.versionedSymbol(library, name, version);
            if (pinned.isPresent()) {
                bindings.put(name, name + "@" + version);
                return pinned.get();
            }
            if (Libc.hasDlvsym()) {
                throw new UnsatisfiedLinkError(library + " has no " + name + "@" + version
                                               + ", the ABI this binding's layouts describe");
            }
            // No dlvsym (not glibc): the default version is the best we can do.
            bindings.put(name, name + " (default version)");
            return lookup.find(name).orElseThrow(() -> new UnsatisfiedLinkError(library + " has no " + name));
        }
    }
}
