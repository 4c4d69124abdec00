package dev.rivulet.rdma.verbs.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct verbs_context} (verbs.h), reduced to what the binding reads: the extended ops "grow up" from the
 * struct's start, and the {@code struct ibv_context} applications see is its <em>last</em> member, so an extended slot
 * lies at a negative offset from the context pointer. {@code sz} (right before the context) says how much of the
 * struct the provider filled: the header's {@code verbs_get_ctx_op} only calls a slot that lies inside it.
 */
public final class VerbsContext {

    /** The members in between are extended ops the binding never calls; they are padding here. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("query_port"),
            MemoryLayout.paddingLayout(304),
            JAVA_LONG.withName("sz"),
            IbvContext.LAYOUT.withName("context"))
            .withName("verbs_context");

    private static final long QUERY_PORT = Downcalls.offset(LAYOUT, "query_port");
    private static final long SZ = Downcalls.offset(LAYOUT, "sz");
    private static final long CONTEXT = Downcalls.offset(LAYOUT, "context");

    private VerbsContext() {
    }

    /**
     * The provider's {@code query_port} of an extended context, or 0 when the context is not extended, the provider's
     * {@code sz} does not cover the slot, or the slot is empty: {@code verbs_get_ctx_op(ctx, query_port)}.
     */
    public static long queryPort(MemorySegment context) {
        if (!IbvContext.isExtended(context)) {
            return 0;
        }
        long base = context.address() - CONTEXT;
        long sz = VerbsDispatch.readLong(base + SZ);
        if (sz < LAYOUT.byteSize() - QUERY_PORT) {
            return 0;
        }
        return VerbsDispatch.readLong(base + QUERY_PORT);
    }
}
