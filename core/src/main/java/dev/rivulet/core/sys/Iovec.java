package dev.rivulet.core.sys;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * {@code struct iovec} (16 bytes, {@code <sys/uio.h>}): base pointer and length, one buffer of a vector.
 * {@code IORING_REGISTER_BUFFERS}, {@code sendmsg} ({@link Msghdr}) and libfabric's message and registration calls
 * take arrays of them; whoever reads the array decides how long it must live (the kernel copies it during the
 * call, a posted libfabric message until its completion).
 */
public final class Iovec {

    public static final StructLayout LAYOUT = MemoryLayout.structLayout(
            ADDRESS.withName("iov_base"),
            JAVA_LONG.withName("iov_len")
    ).withName("iovec");

    public static final long SIZE = LAYOUT.byteSize();

    private static final VarHandle BASE = LAYOUT.varHandle(groupElement("iov_base"));
    private static final VarHandle LEN = LAYOUT.varHandle(groupElement("iov_len"));

    private Iovec() {
    }

    /** Writes element {@code index} of an iovec array to describe {@code buffer}. */
    public static void set(MemorySegment array, long index, MemorySegment buffer) {
        long base = index * SIZE;
        BASE.set(array, base, buffer);
        LEN.set(array, base, buffer.byteSize());
    }

    /**
     * Writes element {@code index} to describe {@code length} bytes at {@code offset} in {@code buffer}, without the
     * slice {@link #set(MemorySegment, long, MemorySegment)} would need.
     */
    public static void set(MemorySegment array, long index, MemorySegment buffer, long offset, long length) {
        Objects.checkFromIndexSize(offset, length, buffer.byteSize());
        set(array, index, buffer.address() + offset, length);
    }

    /**
     * Writes element {@code index} to describe {@code length} bytes at a raw {@code address}, which the caller keeps
     * valid (another process's memory, for {@code process_vm_readv}).
     */
    public static void set(MemorySegment array, long index, long address, long length) {
        long base = index * SIZE;
        array.set(JAVA_LONG, base, address); // iov_base: a 64-bit pointer on x86-64 and aarch64
        LEN.set(array, base, length);
    }

    /** Sets the base of the single iovec {@code s}. */
    public static void setBase(MemorySegment s, MemorySegment base) {
        BASE.set(s, 0L, base);
    }

    /** Sets the length of the single iovec {@code s}. */
    public static void setLength(MemorySegment s, long length) {
        LEN.set(s, 0L, length);
    }

    public static long base(MemorySegment array, long index) {
        return ((MemorySegment) BASE.get(array, index * SIZE)).address();
    }

    public static long length(MemorySegment array, long index) {
        return (long) LEN.get(array, index * SIZE);
    }
}
