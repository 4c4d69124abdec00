package dev.rivulet.rio.uring.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code struct io_sqring_offsets} (40 bytes): where, inside the mapped SQ ring, the kernel placed each field.
 * Embedded in {@link IoUringParams} at {@link IoUringParams#SQ_OFF_OFFSET}; the values are runtime data, never
 * constants, so the ring reads them from the params the kernel filled in.
 */
public final class IoSqringOffsets {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            JAVA_INT.withName("head"),
            JAVA_INT.withName("tail"),
            JAVA_INT.withName("ring_mask"),
            JAVA_INT.withName("ring_entries"),
            JAVA_INT.withName("flags"),
            JAVA_INT.withName("dropped"),
            JAVA_INT.withName("array"),
            JAVA_INT.withName("resv1"),
            JAVA_LONG.withName("resv2") // newer kernels: user_addr (IORING_SETUP_NO_MMAP)
    ).withName("io_sqring_offsets");

    private static final VarHandle HEAD = LAYOUT.varHandle(groupElement("head"));
    private static final VarHandle TAIL = LAYOUT.varHandle(groupElement("tail"));
    private static final VarHandle RING_MASK = LAYOUT.varHandle(groupElement("ring_mask"));
    private static final VarHandle RING_ENTRIES = LAYOUT.varHandle(groupElement("ring_entries"));
    private static final VarHandle FLAGS = LAYOUT.varHandle(groupElement("flags"));
    private static final VarHandle DROPPED = LAYOUT.varHandle(groupElement("dropped"));
    private static final VarHandle ARRAY = LAYOUT.varHandle(groupElement("array"));

    private IoSqringOffsets() {
    }

    /** Offset of the consumer index (kernel-written) in the SQ ring. */
    public static int head(MemorySegment s, long base) {
        return (int) HEAD.get(s, base);
    }

    /** Offset of the producer index (application-written) in the SQ ring. */
    public static int tail(MemorySegment s, long base) {
        return (int) TAIL.get(s, base);
    }

    public static int ringMask(MemorySegment s, long base) {
        return (int) RING_MASK.get(s, base);
    }

    public static int ringEntries(MemorySegment s, long base) {
        return (int) RING_ENTRIES.get(s, base);
    }

    public static int flags(MemorySegment s, long base) {
        return (int) FLAGS.get(s, base);
    }

    public static int dropped(MemorySegment s, long base) {
        return (int) DROPPED.get(s, base);
    }

    /** Offset of the index array (slot i of the ring names SQE {@code array[i]}). */
    public static int array(MemorySegment s, long base) {
        return (int) ARRAY.get(s, base);
    }
}
