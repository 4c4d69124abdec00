package dev.rivulet.rdma.fabric.sys;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.rivulet.core.sys.Downcalls;

import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;

/**
 * {@code struct fi_cq_data_entry} (fi_eq.h): the completion entry of a CQ opened with
 * {@code FI_CQ_FORMAT_DATA}. {@link FidCq#read} fills an array of them, so the accessors take the array and an
 * index; the array is owned by the caller (allocate it once per CQ with {@link #allocateArray}).
 *
 * <p>{@code op_context} is the context pointer given to the operation (a {@link FiContext2} slot), which is how a
 * completion finds its way back to the Java request. {@code buf}/{@code len}/{@code data} are meaningful for
 * receives (and {@code data} only with {@code FI_REMOTE_CQ_DATA} in {@code flags}).
 */
public final class FiCqDataEntry {

    /** {@code struct fi_cq_data_entry}. */
    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("op_context"),
            JAVA_LONG.withName("flags"),
            JAVA_LONG.withName("len"),
            ADDRESS.withName("buf"),
            JAVA_LONG.withName("data"))
            .withName("fi_cq_data_entry");

    /** {@code sizeof(struct fi_cq_data_entry)}: the stride of the array {@code fi_cq_read} fills. */
    public static final long SIZE = LAYOUT.byteSize();

    private static final long OP_CONTEXT = Downcalls.offset(LAYOUT, "op_context");
    private static final long FLAGS = Downcalls.offset(LAYOUT, "flags");
    private static final long LEN = Downcalls.offset(LAYOUT, "len");
    private static final long BUF = Downcalls.offset(LAYOUT, "buf");
    private static final long DATA = Downcalls.offset(LAYOUT, "data");

    private FiCqDataEntry() {
    }

    /** A zeroed array of {@code count} entries owned by {@code arena}. */
    public static MemorySegment allocateArray(Arena arena, long count) {
        return arena.allocate(LAYOUT, count);
    }

    /** {@code op_context} of entry {@code index}: the operation's context pointer, raw. */
    public static MemorySegment opContext(MemorySegment entries, long index) {
        return entries.get(ADDRESS, index * SIZE + OP_CONTEXT);
    }

    /**
     * {@code op_context} of entry {@code index} as a plain address: what a completion loop compares against its
     * context slab, without allocating a {@code MemorySegment} per completion.
     */
    public static long opContextAddress(MemorySegment entries, long index) {
        return entries.get(JAVA_LONG, index * SIZE + OP_CONTEXT);
    }

    /** {@code flags} of entry {@code index}: {@code FI_SEND}/{@code FI_RECV}/{@code FI_RMA | FI_WRITE}... */
    public static long flags(MemorySegment entries, long index) {
        return entries.get(JAVA_LONG, index * SIZE + FLAGS);
    }

    /** {@code len} of entry {@code index}: bytes received (receives only). */
    public static long len(MemorySegment entries, long index) {
        return entries.get(JAVA_LONG, index * SIZE + LEN);
    }

    /** {@code buf} of entry {@code index}: start of the received data (receives only), raw. */
    public static MemorySegment buf(MemorySegment entries, long index) {
        return entries.get(ADDRESS, index * SIZE + BUF);
    }

    /** {@code data} of entry {@code index}: remote CQ data, valid with {@code FI_REMOTE_CQ_DATA} in flags. */
    public static long data(MemorySegment entries, long index) {
        return entries.get(JAVA_LONG, index * SIZE + DATA);
    }
}
