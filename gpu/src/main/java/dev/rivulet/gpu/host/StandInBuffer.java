package dev.rivulet.gpu.host;

import dev.rivulet.gpu.spi.AbstractDeviceBuffer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** A stand-in "device" allocation: off-heap host memory in an arena of its own. */
final class StandInBuffer extends AbstractDeviceBuffer {

    private final Arena arena;
    final MemorySegment memory;

    StandInBuffer(HostMemoryStandIn owner, Arena arena, MemorySegment memory) {
        super(owner, memory.address(), memory.byteSize());
        this.arena = arena;
        this.memory = memory;
    }

    @Override
    protected void deallocate() {
        arena.close();
    }
}
