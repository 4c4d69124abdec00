package dev.rivulet.rio.uring.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code struct io_cqring_offsets} (40 bytes): where, inside the mapped CQ ring, the kernel placed each field.
 * Embedded in {@link IoUringParams} at {@link IoUringParams#CQ_OFF_OFFSET}; runtime values, never constants.
 */
public final class IoCqringOffsets {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("head"),
            JAVA_INT.withName("tail"),
            JAVA_INT.withName("ring_mask"),
            JAVA_INT.withName("ring_entries"),
            JAVA_INT.withName("overflow"),
            JAVA_INT.withName("cqes"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("resv1"),
            JAVA_LONG.withName("resv2")
    ).withName("io_cqring_offsets");

    private static final VarHandle HEAD = LAYOUT.varHandle(groupElement("head"));
    private static final VarHandle TAIL = LAYOUT.varHandle(groupElement("tail"));
    private static final VarHandle RING_MASK = LAYOUT.varHandle(groupElement("ring_mask"));
    private static final VarHandle RING_ENTRIES = LAYOUT.varHandle(groupElement("ring_entries"));
    private static final VarHandle OVERFLOW = LAYOUT.varHandle(groupElement("overflow"));
    private static final VarHandle CQES = LAYOUT.varHandle(groupElement("cqes"));
    private static final VarHandle FLAGS = LAYOUT.varHandle(groupElement("flags"));

    private IoCqringOffsets() {
    }

    /** Offset of the consumer index (application-written) in the CQ ring. */
    public static int head(MemorySegment s, long base) {
        return (int) HEAD.get(s, base);
    }

    /** Offset of the producer index (kernel-written) in the CQ ring. */
    public static int tail(MemorySegment s, long base) {
        return (int) TAIL.get(s, base);
    }

    public static int ringMask(MemorySegment s, long base) {
        return (int) RING_MASK.get(s, base);
    }

    public static int ringEntries(MemorySegment s, long base) {
        return (int) RING_ENTRIES.get(s, base);
    }

    /** Offset of the counter of completions lost to overflow (stays 0 with IORING_FEAT_NODROP). */
    public static int overflow(MemorySegment s, long base) {
        return (int) OVERFLOW.get(s, base);
    }

    /** Offset of the CQE array. */
    public static int cqes(MemorySegment s, long base) {
        return (int) CQES.get(s, base);
    }

    public static int flags(MemorySegment s, long base) {
        return (int) FLAGS.get(s, base);
    }
}
