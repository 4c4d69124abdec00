package dev.rivulet.gpu.host;

import dev.rivulet.gpu.spi.AbstractDeviceBuffer;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * A stand-in "device" allocation: off-heap host memory in an arena of its own, or a shared file mapped into one
 * (when its memory type shares buffers between processes), deleted when freed.
 */
final class StandInBuffer extends AbstractDeviceBuffer {

    private final Arena arena;
    final MemorySegment memory;
    final @Nullable Path sharedFile;

    StandInBuffer(HostMemoryStandIn owner, Arena arena, MemorySegment memory, @Nullable Path sharedFile) {
        super(owner, memory.address(), memory.byteSize());
        this.arena = arena;
        this.memory = memory;
        this.sharedFile = sharedFile;
    }

    @Override
    protected void deallocate() {
        arena.close();
        if (sharedFile != null) {
            SharedFiles.delete(sharedFile);
        }
    }
}
