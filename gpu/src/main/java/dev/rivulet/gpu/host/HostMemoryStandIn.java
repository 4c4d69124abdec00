package dev.rivulet.gpu.host;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.gpu.CopyStream;
import dev.rivulet.gpu.DeviceMemoryException;
import dev.rivulet.gpu.spi.AbstractCopyStream;
import dev.rivulet.gpu.spi.AbstractDeviceBuffer;
import dev.rivulet.gpu.spi.AbstractDeviceMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Host memory standing in as a device memory type, where there is no GPU: the whole device pipeline runs through it
 * unchanged. "Device" buffers are off-heap host memory; copies behave as {@code cudaMemcpyAsync} on a stream does:
 * each {@link CopyStream} has a copy thread of its own that runs its copies in order, and a copy's end is seen only
 * by querying its event. Like CUDA it needs pinned host memory for asynchronous copies, and it is stricter: a copy
 * from or to host memory that was not pinned ({@link #pinRegion}) is refused, so a pipeline that forgets to pin
 * fails here instead of silently running synchronous copies on a GPU.
 *
 * <p>A {@link CopyHook} slows copies down or fails chosen ones, for tests.
 */
public final class HostMemoryStandIn extends AbstractDeviceMemory {

    public static final String KIND = "host-stand-in";

    private final CopyHook hook;
    private final PinnedRanges pinnedRanges = new PinnedRanges();

    private HostMemoryStandIn(int device, CopyHook hook) {
        super(KIND, device);
        this.hook = hook;
    }

    /** A stand-in for device 0 with copies at host memory speed. */
    public static HostMemoryStandIn create() {
        return new HostMemoryStandIn(0, CopyHook.NONE);
    }

    /** A stand-in whose copy threads run {@code hook} before every copy. */
    public static HostMemoryStandIn create(CopyHook hook) {
        if (hook == null) {
            throw new InvalidRequestException("copy hook must not be null");
        }
        return new HostMemoryStandIn(0, hook);
    }

    @Override
    protected AbstractDeviceBuffer allocateBuffer(long bytes) {
        Arena arena = Arena.ofShared();
        MemorySegment memory;
        try {
            memory = arena.allocate(bytes, 256); // cudaMalloc's alignment
        } catch (OutOfMemoryError e) {
            arena.close();
            throw new DeviceMemoryException("allocating " + bytes + " bytes", KIND, 2, "standInErrorMemoryAllocation",
                    "out of memory");
        }
        return new StandInBuffer(this, arena, memory);
    }

    @Override
    protected AbstractCopyStream<?> newStream() {
        return new StandInStream(this, hook);
    }

    @Override
    protected void pinHost(MemorySegment segment) {
        pinnedRanges.add(segment);
    }

    @Override
    protected void unpinHost(MemorySegment segment) {
        pinnedRanges.remove(segment);
    }

    /** Whether host memory {@code [address, address + length)} is pinned (what copies check). */
    boolean hostPinned(long address, long length) {
        return pinnedRanges.covers(address, length);
    }
}
