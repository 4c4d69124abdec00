package dev.rivulet.rio.uring.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;

/**
 * {@code struct iovec} (16 bytes): base pointer and length. {@code IORING_REGISTER_BUFFERS} takes an array of
 * them; the kernel copies the array during the call, so it may live in a short-lived arena.
 */
public final class Iovec {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("iov_base"),
            JAVA_LONG.withName("iov_len")
    ).withName("iovec");

    public static final long BYTE_SIZE = LAYOUT.byteSize();

    private static final VarHandle BASE = LAYOUT.varHandle(groupElement("iov_base"));
    private static final VarHandle LEN = LAYOUT.varHandle(groupElement("iov_len"));

    private Iovec() {
    }

    /** Writes element {@code index} of an iovec array to describe {@code buffer}. */
    public static void set(MemorySegment array, long index, MemorySegment buffer) {
        long base = index * BYTE_SIZE;
        BASE.set(array, base, buffer);
        LEN.set(array, base, buffer.byteSize());
    }

    /**
     * Writes element {@code index} to describe {@code length} bytes at {@code offset} in {@code buffer}, without the
     * slice {@link #set(MemorySegment, long, MemorySegment)} would need.
     */
    public static void set(MemorySegment array, long index, MemorySegment buffer, long offset, long length) {
        java.util.Objects.checkFromIndexSize(offset, length, buffer.byteSize());
        long base = index * BYTE_SIZE;
        array.set(JAVA_LONG, base, buffer.address() + offset); // iov_base: a 64-bit pointer on x86-64 and aarch64
        LEN.set(array, base, length);
    }

    public static long base(MemorySegment array, long index) {
        return ((MemorySegment) BASE.get(array, index * BYTE_SIZE)).address();
    }

    public static long length(MemorySegment array, long index) {
        return (long) LEN.get(array, index * BYTE_SIZE);
    }
}
