package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_context2} (fabric.h): 64 bytes of provider scratch space behind an operation's
 * {@code void *context}.
 *
 * <p>When {@code fi_info.mode} (or {@code tx_attr/rx_attr.mode}) contains {@code FI_CONTEXT2} (or
 * {@code FI_CONTEXT}, which needs the first 32 bytes of the same slot), the context of every operation that
 * completes must point to such a block, which the provider may write until the completion has been read. It
 * must therefore stay valid and untouched for the whole operation: keep it in native memory whose owner outlives
 * the operation (a slab of slots), not in a confined arena closed after the post. The CQ entry returns the same
 * pointer in {@code op_context}, so {@code (op_context - slabBase) / SIZE} can index the Java-side request.
 * There is nothing to read or write in it, hence no accessors.
 */
public final class FiContext2 {

    /** {@code struct fi_context2}: {@code void *internal[8]}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            MemoryLayout.sequenceLayout(8, ADDRESS).withName("internal"))
            .withName("fi_context2");

    /** {@code sizeof(struct fi_context2)}: the slot size for context slabs. */
    public static final long SIZE = LAYOUT.byteSize();

    private FiContext2() {
    }
}
