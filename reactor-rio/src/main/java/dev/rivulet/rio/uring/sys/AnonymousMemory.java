package dev.rivulet.rio.uring.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** Memory mapped privately and anonymously, for buffers that must go back to the system when their owner closes. */
public final class AnonymousMemory {

    private AnonymousMemory() {
    }

    /**
     * {@code length} bytes of private anonymous memory, unmapped when {@code arena} closes: for buffers that must go
     * back to the system when their owner does. Memory from the C heap stays with the allocator after it is freed
     * (glibc raises its mmap threshold to the size of the last mapped block freed, so later blocks of that size come
     * from its arenas and are kept), and a listener that held a thousand connections' buffers would keep them for
     * good. The pages are committed when first touched.
     */
    @SuppressWarnings("restricted") // reinterpret: the size is the one we asked mmap for
    public static MemorySegment map(long length, Arena arena) {
        MemorySegment raw = Libc.mmap(length, Libc.PROT_READ | Libc.PROT_WRITE,
                Libc.MAP_PRIVATE | Libc.MAP_ANONYMOUS, -1, 0);
        long address = raw.address();
        return raw.reinterpret(length, arena, unused -> Libc.munmap(address, length));
    }
}
