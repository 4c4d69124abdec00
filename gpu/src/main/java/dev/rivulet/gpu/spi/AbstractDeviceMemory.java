package dev.rivulet.gpu.spi;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ResourceClosedException;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.gpu.CopyStream;
import dev.rivulet.gpu.DeviceBuffer;
import dev.rivulet.gpu.DeviceMemory;
import dev.rivulet.gpu.DeviceMemoryStats;
import dev.rivulet.gpu.metrics.GpuMetrics;

import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What every {@link DeviceMemory} keeps the same way, whatever its native calls: the buffers, streams and events it
 * holds (for {@link #stats()} and for {@link #close()}), its meters, its pinned host regions, and refusing new work
 * once closed. An implementation supplies the native allocation, stream and host pin; its buffers, streams and
 * events extend {@link AbstractDeviceBuffer}, {@link AbstractCopyStream} and {@link AbstractCopyEvent}, which report
 * their ends here.
 */
public abstract class AbstractDeviceMemory implements DeviceMemory {

    private final String kind;
    private final int device;
    private final GpuMetrics metrics;
    private final RegionPins regionPins;
    private final Set<AbstractDeviceBuffer> buffers = ConcurrentHashMap.newKeySet();
    private final Set<AbstractCopyStream<?>> streams = ConcurrentHashMap.newKeySet();
    private final AtomicLong events = new AtomicLong();
    private final AtomicLong allocatedBytes = new AtomicLong();
    private volatile boolean closed;

    protected AbstractDeviceMemory(String kind, int device) {
        this.kind = kind;
        this.device = device;
        this.metrics = new GpuMetrics(kind, device);
        this.regionPins = new RegionPins(new RegionPins.Pinner() {
            @Override
            public void pin(MemorySegment segment) {
                pinHost(segment);
            }

            @Override
            public void unpin(MemorySegment segment) {
                unpinHost(segment);
            }
        });
    }

    /** Allocates {@code bytes} (positive) of device memory; the memory type is open. May block. */
    protected abstract AbstractDeviceBuffer allocateBuffer(long bytes);

    /** Opens a native copy stream; the memory type is open. May block. */
    protected abstract AbstractCopyStream<?> newStream();

    /**
     * Page-locks host memory for asynchronous copies: the memory of a whole registered region, once however many
     * transfers use it. May block.
     */
    protected abstract void pinHost(MemorySegment segment);

    /** Undoes {@link #pinHost}. */
    protected abstract void unpinHost(MemorySegment segment);

    @Override
    public final String kind() {
        return kind;
    }

    @Override
    public final int device() {
        return device;
    }

    @Override
    public final DeviceBuffer allocate(long bytes) {
        checkOpen();
        if (bytes <= 0) {
            throw new InvalidRequestException("device allocation of " + bytes + " bytes");
        }
        AbstractDeviceBuffer b = allocateBuffer(bytes);
        buffers.add(b);
        allocatedBytes.addAndGet(bytes);
        metrics.allocatedDelta(bytes);
        return b;
    }

    /** A buffer's memory is being given back (its {@code free}, once). */
    final void freed(AbstractDeviceBuffer b) {
        if (buffers.remove(b)) {
            allocatedBytes.addAndGet(-b.length());
            metrics.allocatedDelta(-b.length());
        }
    }

    @Override
    public final CopyStream openStream() {
        checkOpen();
        AbstractCopyStream<?> s = newStream();
        streams.add(s);
        return s;
    }

    final void streamClosed(AbstractCopyStream<?> s) {
        streams.remove(s);
    }

    final void eventCreated() {
        events.incrementAndGet();
    }

    final void eventClosed() {
        events.decrementAndGet();
    }

    @Override
    public final void pinRegion(MemoryRegion region) {
        checkOpen();
        regionPins.pin(region);
    }

    @Override
    public final boolean isPinned(MemoryRegion region) {
        return regionPins.isPinned(region);
    }

    @Override
    public final GpuMetrics metrics() {
        return metrics;
    }

    @Override
    public final DeviceMemoryStats stats() {
        return new DeviceMemoryStats(buffers.size(), allocatedBytes.get(), streams.size(), events.get(),
                regionPins.size());
    }

    private void checkOpen() {
        if (closed) {
            throw new ResourceClosedException(kind + " memory of device " + device + " is closed");
        }
    }

    @Override
    public final void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (AbstractDeviceBuffer b : List.copyOf(buffers)) {
            b.close();
        }
        for (AbstractCopyStream<?> s : List.copyOf(streams)) {
            s.close();
        }
        regionPins.close();
        metrics.close();
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[device=" + device + "]";
    }
}
