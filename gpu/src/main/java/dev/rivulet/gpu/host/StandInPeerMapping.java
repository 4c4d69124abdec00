package dev.rivulet.gpu.host;

import dev.rivulet.gpu.PeerMapping;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A stand-in allocation as a peer: another process's shared file mapped here (its arena unmaps it), or a buffer of
 * this process seen as it is.
 */
final class StandInPeerMapping extends PeerMapping {

    final MemorySegment memory;
    private final @Nullable Arena arena;

    StandInPeerMapping(MemorySegment memory, int device, @Nullable Arena arena) {
        super(memory.address(), memory.byteSize(), device);
        this.memory = memory;
        this.arena = arena;
    }

    @Override
    protected void unmap() {
        if (arena != null) {
            arena.close();
        }
    }
}
