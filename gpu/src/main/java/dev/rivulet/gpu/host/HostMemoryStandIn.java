package dev.rivulet.gpu.host;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.gpu.DeviceBuffer;
import dev.rivulet.gpu.PeerMapping;
import dev.rivulet.gpu.CopyStream;
import dev.rivulet.gpu.DeviceMemoryException;
import dev.rivulet.gpu.spi.AbstractCopyStream;
import dev.rivulet.gpu.spi.AbstractDeviceBuffer;
import dev.rivulet.gpu.spi.AbstractDeviceMemory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * Host memory standing in as a device memory type, where there is no GPU: the whole device pipeline runs through it
 * unchanged. "Device" buffers are off-heap host memory; copies behave as {@code cudaMemcpyAsync} on a stream does:
 * each {@link CopyStream} has a copy thread of its own that runs its copies in order, and a copy's end is seen only
 * by querying its event. Like CUDA it needs pinned host memory for asynchronous copies, and it is stricter: a copy
 * from or to host memory that was not pinned ({@link #pinRegion}) is refused, so a pipeline that forgets to pin
 * fails here instead of silently running synchronous copies on a GPU.
 *
 * <p>A {@link CopyHook} slows copies down or fails chosen ones, for tests.
 *
 * <p>{@link #shareable()} stands in for CUDA IPC too: its buffers are files under {@code /dev/shm} mapped shared,
 * which another process of this host opens from their handle, and device-to-device copies run on the copy threads.
 */
public final class HostMemoryStandIn extends AbstractDeviceMemory {

    public static final String KIND = "host-stand-in";

    private final CopyHook hook;
    private final boolean shareable;
    private final PinnedRanges pinnedRanges = new PinnedRanges();

    private HostMemoryStandIn(int device, CopyHook hook, boolean shareable) {
        super(KIND, device);
        this.hook = hook;
        this.shareable = shareable;
    }

    /** A stand-in for device 0 with copies at host memory speed. */
    public static HostMemoryStandIn create() {
        return new HostMemoryStandIn(0, CopyHook.NONE, false);
    }

    /**
     * A stand-in for device 0 whose buffers other processes of this host can map ({@link #exportIpc}): each is a
     * file of its own under {@code /dev/shm}, so it needs room there.
     */
    public static HostMemoryStandIn shareable() {
        return new HostMemoryStandIn(0, CopyHook.NONE, true);
    }

    /** A stand-in whose copy threads run {@code hook} before every copy. */
    public static HostMemoryStandIn create(CopyHook hook) {
        if (hook == null) {
            throw new InvalidRequestException("copy hook must not be null");
        }
        return new HostMemoryStandIn(0, hook, false);
    }

    @Override
    protected AbstractDeviceBuffer allocateBuffer(long bytes) {
        Arena arena = Arena.ofShared();
        MemorySegment memory;
        if (shareable) {
            Path file = SharedFiles.newFile();
            try {
                return new StandInBuffer(this, arena, SharedFiles.create(file, bytes, arena), file);
            } catch (RuntimeException e) {
                arena.close();
                throw e;
            }
        }
        try {
            memory = arena.allocate(bytes, 256); // cudaMalloc's alignment
        } catch (OutOfMemoryError e) {
            arena.close();
            throw new DeviceMemoryException("allocating " + bytes + " bytes", KIND, 2, "standInErrorMemoryAllocation",
                    "out of memory");
        }
        return new StandInBuffer(this, arena, memory, null);
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

    @Override
    public Availability ipcAvailability() {
        if (!shareable) {
            return Availability.no("stand-in buffers are private to the process; HostMemoryStandIn.shareable() "
                    + "shares them");
        }
        return SharedFiles.available() ? Availability.yes()
                : Availability.no(SharedFiles.DIRECTORY + " is not a writable directory");
    }

    @Override
    public byte[] exportIpc(DeviceBuffer buffer) {
        if (!(buffer instanceof StandInBuffer b) || b.memory() != this || b.sharedFile == null) {
            throw new InvalidRequestException("not a shareable buffer of " + this + ": " + buffer);
        }
        return SharedFiles.handle(b.sharedFile);
    }

    @Override
    public PeerMapping openIpc(byte[] handle, long length) {
        Arena arena = Arena.ofShared();
        try {
            return new StandInPeerMapping(SharedFiles.open(handle, length, arena), device(), arena);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    @Override
    public PeerMapping mapLocal(DeviceBuffer exported) {
        if (!(exported instanceof StandInBuffer b)) {
            throw new InvalidRequestException("not a stand-in buffer: " + exported);
        }
        return new StandInPeerMapping(b.memory, b.memory().device(), null);
    }

    /** Whether host memory {@code [address, address + length)} is pinned (what copies check). */
    boolean hostPinned(long address, long length) {
        return pinnedRanges.covers(address, length);
    }
}
