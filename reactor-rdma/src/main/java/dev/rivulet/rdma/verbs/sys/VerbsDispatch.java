package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Plumbing shared by the types of this package: linking downcalls (errno capture is
 * {@link dev.rivulet.core.sys.Downcalls}'), reading a
 * function pointer out of the ops table every {@code ibv_context} embeds, and reading native pointers and strings.
 *
 * <p>libibverbs' data path ({@code ibv_post_send}, {@code ibv_post_recv}, {@code ibv_poll_cq},
 * {@code ibv_req_notify_cq}) is {@code static inline} in {@code verbs.h}: each loads the {@code ibv_context} from the
 * object's first field and calls the provider's function from {@code context->ops}. There is no symbol to bind, so
 * each call site holds one address-less downcall handle per C signature and passes the function pointer it just
 * read as the target. The restricted FFM operations of the package are concentrated here.
 */
final class VerbsDispatch {

    /**
     * Debug switch: {@code -Ddev.rivulet.verbs.critical=false} links the data-path calls as ordinary downcalls, e.g.
     * to rule {@link Linker.Option#critical(boolean)} out when a provider seems to stall safepoints.
     */
    static final boolean CRITICAL = !"false".equalsIgnoreCase(System.getProperty("dev.rivulet.verbs.critical"));

    private static final Linker LINKER = Linker.nativeLinker();

    /**
     * A view of the whole address space, for following pointers native code handed us (the context of a queue pair,
     * the ops slot inside it) without making a sized segment per read on the data path. The addresses are trusted:
     * they come from verbs objects that stay alive while their owner uses them.
     */
    @SuppressWarnings("restricted")
    private static final MemorySegment ALL = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private VerbsDispatch() {
    }

    /** An ordinary downcall to an exported function. */
    @SuppressWarnings("restricted")
    static MethodHandle downcall(MemorySegment symbol, FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(symbol, descriptor);
    }

    /** An address-less downcall for a function pointer read at run time (calls that may take a while). */
    @SuppressWarnings("restricted")
    static MethodHandle pointerDowncall(FunctionDescriptor descriptor) {
        return LINKER.downcallHandle(descriptor);
    }

    /**
     * An address-less downcall for the short, non-blocking data-path calls (post a work request, poll a CQ, arm a
     * CQ): {@code critical(false)} skips the thread-state transition. Such a call must not block or call back into
     * Java, and delays safepoints while it runs; the provider's post and poll functions only touch memory-mapped
     * queues and doorbells.
     */
    @SuppressWarnings("restricted")
    static MethodHandle criticalPointerDowncall(FunctionDescriptor descriptor) {
        return CRITICAL ? LINKER.downcallHandle(descriptor, Linker.Option.critical(false))
                : pointerDowncall(descriptor);
    }

    /**
     * The function in slot {@code slotOffset} of the {@code struct ibv_context_ops} embedded in the context that
     * {@code object} (a QP, CQ, SRQ, PD or MR: all start with their {@code ibv_context *}) belongs to, or 0 when
     * the provider left it empty.
     */
    static long contextOp(MemorySegment object, long slotOffset) {
        long obj = object.address();
        if (obj == 0) {
            throw new NullPointerException("verbs object pointer is NULL");
        }
        long context = ALL.get(JAVA_LONG, obj);
        return ALL.get(JAVA_LONG, context + IbvContext.OPS + slotOffset);
    }

    /** The target of an address-less downcall handle. */
    static MemorySegment target(long function) {
        return MemorySegment.ofAddress(function);
    }

    /**
     * A native pointer made readable over {@code size} bytes, or {@link MemorySegment#NULL}. Pointers from native
     * code arrive as zero-length segments; the caller vouches for the size (a struct layout).
     */
    @SuppressWarnings("restricted")
    static MemorySegment sized(MemorySegment pointer, long size) {
        return pointer.address() == 0 ? MemorySegment.NULL : pointer.reinterpret(size);
    }

    /** The word at a native address, for the few fields read through raw pointers (a context's slot, a size). */
    static long readLong(long address) {
        return ALL.get(JAVA_LONG, address);
    }

    /** Reads a NUL-terminated string at a native address, or {@code null} for NULL. */
    static String string(MemorySegment pointer) {
        long address = pointer.address();
        return address == 0 ? null : ALL.getString(address);
    }
}
