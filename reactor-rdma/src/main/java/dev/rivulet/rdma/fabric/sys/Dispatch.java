package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Plumbing shared by the struct and object types of this package: downcall linking, the ops-table walk that
 * replaces libfabric's header-inline calls, and pointer/string reads.
 *
 * <p>libfabric implements almost every call as a {@code static inline} function that loads an ops-table pointer
 * from the object and calls a function pointer out of it. There is no symbol to bind, so each call site here
 * holds one address-less downcall handle per C signature and passes the function pointer it just read as the
 * first argument. One handle therefore serves every provider, and a call costs the table walk plus one
 * {@code invokeExact}.
 *
 * <p>The restricted FFM operations of the package (linking downcalls, resizing native pointers) are concentrated
 * here; the module runs with {@code --enable-native-access}, so the {@code restricted} lint is silenced per
 * method rather than scattered over every struct type.
 */
final class Dispatch {

    /**
     * Debug switch: {@code -Ddev.rivulet.libfabric.critical=false} links the data-path calls without
     * {@link Linker.Option#critical(boolean)}, e.g. to rule it out when a provider seems to stall safepoints.
     */
    static final boolean CRITICAL = !"false".equalsIgnoreCase(System.getProperty("dev.rivulet.libfabric.critical"));

    private static final Linker LINKER = Linker.nativeLinker();

    /**
     * A view of the whole address space. Following pointers that native code handed us (ops tables, strings)
     * through it avoids creating a resized segment per read on the hot path; the addresses are trusted because
     * they come from libfabric objects that are alive while their owner uses them.
     */
    @SuppressWarnings("restricted")
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private Dispatch() {
    }

    /** A downcall for calls that may block, take long, or are simply not worth special treatment. */
    @SuppressWarnings("restricted")
    static MethodHandle downcall(FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(descriptor);
    }

    /**
     * A downcall for short, non-blocking data-path calls (post a send, poll a CQ): {@code critical(false)} skips
     * the thread-state transition. Such a call must not block, must not call back into Java and delays
     * safepoints while it runs, so never use this for {@code fi_cq_sread} or anything that can wait.
     */
    @SuppressWarnings("restricted")
    static MethodHandle criticalDowncall(FunctionDescriptor descriptor) {
        return CRITICAL ? LINKER.downcallHandle(descriptor, Linker.Option.critical(false)) : downcall(descriptor);
    }

    /** Binds an exported symbol (a real {@code dlsym}-able function) to a handle with a fixed target. */
    @SuppressWarnings("restricted")
    static MethodHandle downcall(MemorySegment symbol, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(symbol, descriptor);
    }

    /**
     * Reads the function pointer at {@code slot} of the ops table whose pointer sits at {@code table} inside the
     * object, or returns 0 when the provider does not implement it.
     *
     * <p>This applies the header's {@code FI_CHECK_OP} guard ({@code ops != NULL && ops->size > slot && fn}) to
     * every slot, not only to the few the header guards: providers leave whole tables NULL (an RDM endpoint
     * opened without {@code FI_ATOMIC} may have {@code ep->atomic == NULL}) and older providers publish shorter
     * tables. Callers turn 0 into {@code -FI_ENOSYS}, as the header does for guarded slots.
     */
    static long function(MemorySegment object, long table, long slot) {
        long obj = object.address();
        if (obj == 0) {
            throw new NullPointerException("libfabric object pointer is NULL");
        }
        long ops = ALL.get(JAVA_LONG, obj + table);
        if (ops == 0 || ALL.get(JAVA_LONG, ops) <= slot) {
            return 0;
        }
        return ALL.get(JAVA_LONG, ops + slot);
    }

    /**
     * The target of an address-less downcall handle. A segment made per call would be an object per libfabric call
     * on the data path (the JIT does not see through the downcall to scalar-replace it), so targets are kept in a
     * small table by function pointer: a process sees a few dozen functions per provider. Slots hold immutable
     * entries, so threads racing on one only ever make an extra segment; a slot two functions share swaps entries.
     */
    static MemorySegment target(long function) {
        int slot = (int) (mix(function) & (TARGETS.length - 1));
        Target t = TARGETS[slot];
        if (t == null || t.function != function) {
            t = new Target(function, MemorySegment.ofAddress(function));
            TARGETS[slot] = t;
        }
        return t.segment;
    }

    private static final Target[] TARGETS = new Target[512];

    private record Target(long function, MemorySegment segment) {
    }

    /** Spreads function pointers (16-byte aligned, clustered in a few libraries) over the table. */
    private static long mix(long x) {
        x ^= x >>> 33;
        x *= 0xff51afd7ed558ccdL;
        return x ^ (x >>> 33);
    }

    /**
     * Reads a pointer field and sizes the result for {@code target}, or returns {@link MemorySegment#NULL}.
     * Native pointers come back as zero-length segments; the layout size makes the fields behind them readable.
     */
    static MemorySegment pointer(MemorySegment struct, long offset, MemoryLayout target) {
        return sized(struct.get(ADDRESS, offset), target.byteSize());
    }

    /**
     * A native pointer made readable over {@code size} bytes, or {@link MemorySegment#NULL}. Pointers from native
     * code arrive as zero-length segments; the caller vouches for the size (a struct layout, a length field).
     */
    @SuppressWarnings("restricted")
    static MemorySegment sized(MemorySegment pointer, long size) {
        return pointer.address() == 0 ? MemorySegment.NULL : pointer.reinterpret(size);
    }

    /** Reads a NUL-terminated UTF-8 string at a native address, or {@code null} for NULL. */
    static String string(MemorySegment pointer) {
        long address = pointer.address();
        return address == 0 ? null : ALL.getString(address);
    }
}
