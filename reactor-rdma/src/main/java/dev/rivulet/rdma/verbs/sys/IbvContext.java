package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct ibv_context} (verbs.h): an opened device, from {@link Ibverbs#openDevice} or librdmacm's own list
 * ({@link Rdmacm#getDevices}). Its ops table is embedded at {@link #OPS}, not pointed to.
 *
 * <p>Providers built on rdma-core's current ABI allocate a {@link VerbsContext} around it; {@link #isExtended} tells
 * whether that is so ({@code abi_compat == (void *) -1}), and only then may the extended slots be read.
 */
public final class IbvContext {

    /** {@code struct ibv_context}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("device"),
            IbvContextOps.LAYOUT.withName("ops"),
            JAVA_INT.withName("cmd_fd"),
            JAVA_INT.withName("async_fd"),
            JAVA_INT.withName("num_comp_vectors"),
            MemoryLayout.paddingLayout(4),
            Pthread.mutex("mutex"),
            ADDRESS.withName("abi_compat"))
            .withName("ibv_context");

    /** {@code sizeof(struct ibv_context)}. */
    public static final long SIZE = LAYOUT.byteSize();

    /** Offset of the embedded {@code struct ibv_context_ops}. */
    public static final long OPS = Downcalls.offset(LAYOUT, "ops");
    private static final long DEVICE = Downcalls.offset(LAYOUT, "device");
    private static final long NUM_COMP_VECTORS = Downcalls.offset(LAYOUT, "num_comp_vectors");
    private static final long ABI_COMPAT = Downcalls.offset(LAYOUT, "abi_compat");

    /** {@code __VERBS_ABI_IS_EXTENDED}: {@code (void *) UINTPTR_MAX}. */
    public static final long ABI_IS_EXTENDED = -1L;

    private IbvContext() {
    }

    /** Sizes a {@code struct ibv_context*}; NULL stays NULL. */
    public static MemorySegment of(MemorySegment pointer) {
        return VerbsDispatch.sized(pointer, SIZE);
    }

    /** {@code ibv_context.device}: pass to {@link Ibverbs#getDeviceName}. */
    public static MemorySegment device(MemorySegment s) {
        return s.get(ADDRESS, DEVICE);
    }

    /** {@code ibv_context.num_comp_vectors}: how many completion vectors (interrupt lines) a CQ may pick from. */
    public static int numCompVectors(MemorySegment s) {
        return s.get(JAVA_INT, NUM_COMP_VECTORS);
    }

    /** Whether the context sits inside a {@code struct verbs_context} ({@code verbs_get_ctx} is not NULL). */
    public static boolean isExtended(MemorySegment s) {
        return s.get(JAVA_LONG, ABI_COMPAT) == ABI_IS_EXTENDED;
    }
}
