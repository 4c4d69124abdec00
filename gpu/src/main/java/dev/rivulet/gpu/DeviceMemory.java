package dev.rivulet.gpu;

import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.gpu.metrics.GpuMetrics;

/**
 * A kind of device memory (UCX calls these memory types): it allocates and frees device buffers, copies between them
 * and host memory asynchronously on {@link CopyStream}s, and pins host memory so that those copies run at full speed.
 * {@link dev.rivulet.gpu.cuda.CudaMemory} is CUDA's; {@link dev.rivulet.gpu.host.HostMemoryStandIn} stands in with
 * host memory where there is no GPU, through the same asynchronous interface.
 *
 * <p>{@link DeviceTransfers} moves device memory over any Rivulet endpoint with it. Calls that may block (allocate,
 * free, open a stream, pin) must not run on a polling thread; queuing copies and querying events never block.
 */
public interface DeviceMemory extends AutoCloseable {

    /** The memory type: {@code cuda}, {@code host-stand-in} (the {@code memory} tag of its meters). */
    String kind();

    /** The device ordinal (CUDA's device number). */
    int device();

    /**
     * Allocates {@code bytes} of device memory. May block.
     *
     * @throws DeviceMemoryException when the device refuses (out of memory)
     */
    DeviceBuffer allocate(long bytes);

    /** A new in-order copy queue. May block. */
    CopyStream openStream();

    /**
     * Pins (page-locks) the memory of a registered host region for asynchronous copies, if it is not already: with
     * CUDA, {@code cudaHostRegister} of the whole region, so one registered segment is both a Rivulet buffer and a
     * CUDA-pinned one with no extra copy. The pin lasts until the region closes or this memory type does. May block.
     */
    void pinRegion(MemoryRegion region);

    /** Whether {@link #pinRegion} pinned {@code region}. Never blocks, allocates nothing. */
    boolean isPinned(MemoryRegion region);

    /**
     * Whether buffers of this memory type can be exported to another process of this host ({@link #exportIpc}) and
     * opened there ({@link #openIpc}), and why not when they cannot.
     */
    default Availability ipcAvailability() {
        return Availability.no(kind() + " memory cannot be shared between processes");
    }

    /**
     * The handle another process of this host opens {@code buffer} with ({@code cudaIpcGetMemHandle}): it names the
     * whole allocation. May block.
     *
     * @throws TransportUnavailableException when {@link #ipcAvailability()} says no
     */
    default byte[] exportIpc(DeviceBuffer buffer) {
        throw new TransportUnavailableException(ipcAvailability().reason());
    }

    /**
     * Maps the allocation of another process that {@code handle} names ({@code cudaIpcOpenMemHandle}, peer access
     * enabled where it lies on another GPU); {@code length} is the allocation's size. A process cannot open its own
     * handles: see {@link #mapLocal}. May block.
     *
     * @throws DeviceMemoryException when the handle cannot be opened (a handle of no live allocation)
     * @throws TransportUnavailableException when {@link #ipcAvailability()} says no
     */
    default PeerMapping openIpc(byte[] handle, long length) {
        throw new TransportUnavailableException(ipcAvailability().reason());
    }

    /**
     * {@code exported}, a buffer of this process (of this memory type, perhaps of another device), as a peer mapping
     * for this memory type's streams: what a process uses instead of opening its own handle. Closing it leaves the
     * buffer as it is.
     *
     * @throws TransportUnavailableException when {@link #ipcAvailability()} says no
     */
    default PeerMapping mapLocal(DeviceBuffer exported) {
        throw new TransportUnavailableException(ipcAvailability().reason());
    }

    /** The meters of this memory type and the transfers using it ({@code rivulet.gpu.*}). */
    GpuMetrics metrics();

    /** What this memory type holds now (allocations, streams, events, pins), for leak checks. */
    DeviceMemoryStats stats();

    /**
     * Frees every buffer still allocated (each once its transfers ended), releases streams and unpins host memory.
     * Idempotent.
     */
    @Override
    void close();
}
