package dev.rivulet.rdma.fabric.sys;

/**
 * The C heap libfabric allocates from. Providers allocate an endpoint's buffer pools with {@code malloc}; glibc
 * serves blocks of that size from its arenas once one such block was freed (its mmap threshold follows the largest
 * block freed, up to 32 MiB), and keeps freed arena memory mapped for the next allocation, so memory a closed
 * endpoint used stays resident until something returns it.
 */
public final class NativeHeap {

    private NativeHeap() {
    }

    /**
     * Returns the free memory of every malloc arena to the system ({@code malloc_trim(0)}); does nothing where libc
     * has no such call (not glibc). Takes a few milliseconds with a large heap: not for a polling thread.
     *
     * @return whether any memory was returned
     */
    public static boolean trim() {
        return Libc.mallocTrim();
    }
}
