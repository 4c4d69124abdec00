package dev.rivulet.gpu.bench;

import dev.rivulet.core.Transport;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.gpu.CopyEvent;
import dev.rivulet.gpu.CopyStream;
import dev.rivulet.gpu.DeviceMemory;
import dev.rivulet.gpu.DeviceSlice;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;

/**
 * Plain copies between host memory and device memory through a pinned scratch buffer, waited for by spinning on the
 * copy's event: for filling and checking device memory in tests and benchmarks, and for timing the device's own
 * copy rate. It blocks the calling thread, so it is never used on a polling thread; transfers use
 * {@link dev.rivulet.gpu.DeviceTransfers}.
 */
public final class HostDeviceCopies implements AutoCloseable {

    private static final Duration COPY_TIMEOUT = Duration.ofSeconds(60);

    private final DeviceMemory memory;
    private final Arena arena = Arena.ofShared();
    private final MemoryRegion scratch;
    private final CopyStream stream;
    private final CopyEvent event;

    /**
     * A scratch of {@code scratchBytes} registered with {@code transport}'s memory domain and pinned for the device
     * (the device memory type pins registered regions).
     */
    public HostDeviceCopies(Transport transport, DeviceMemory memory, long scratchBytes) {
        this.memory = memory;
        MemoryRegion r = null;
        CopyStream s = null;
        try {
            r = transport.memory().register(arena.allocate(scratchBytes, 4096));
            memory.pinRegion(r);
            s = memory.openStream();
            this.event = s.newEvent();
        } catch (RuntimeException e) {
            if (s != null) {
                s.close();
            }
            if (r != null) {
                r.close();
            }
            arena.close();
            throw e;
        }
        this.scratch = r;
        this.stream = s;
    }

    /** The pinned scratch memory (its first bytes are what {@link #timeToDevice} copies). */
    public MemorySegment scratch() {
        return scratch.segment();
    }

    /** Copies {@code source} into {@code target} (same length), scratch-sized piece by piece. */
    public void upload(MemorySegment source, DeviceSlice target) {
        long n = Math.min(source.byteSize(), target.length());
        long piece = scratch.length();
        for (long off = 0; off < n; off += piece) {
            long len = Math.min(piece, n - off);
            MemorySegment.copy(source, off, scratch.segment(), 0, len);
            stream.copyToDevice(scratch.segment(), len, target.buffer(), target.offset() + off, event);
            await();
        }
    }

    /** Copies {@code source} into {@code target}, scratch-sized piece by piece. */
    public void download(DeviceSlice source, MemorySegment target) {
        long n = Math.min(target.byteSize(), source.length());
        long piece = scratch.length();
        for (long off = 0; off < n; off += piece) {
            long len = Math.min(piece, n - off);
            stream.copyToHost(source.buffer(), source.offset() + off, scratch.segment(), len, event);
            await();
            MemorySegment.copy(scratch.segment(), 0, target, off, len);
        }
    }

    /**
     * Copies {@code source} into {@code pinnedTarget} by the device's copy engine alone (no processor copy), and waits:
     * the target must be host memory pinned for the device ({@link DeviceMemory#pinRegion}).
     */
    public void fillFromDevice(DeviceSlice source, MemorySegment pinnedTarget) {
        stream.copyToHost(source.buffer(), source.offset(), pinnedTarget, Math.min(source.length(),
                pinnedTarget.byteSize()), event);
        await();
    }

    /** Nanoseconds of one copy of {@code target.length()} bytes from the pinned scratch into device memory. */
    public long timeToDevice(DeviceSlice target) {
        long start = System.nanoTime();
        stream.copyToDevice(scratch.segment(), target.length(), target.buffer(), target.offset(), event);
        await();
        return System.nanoTime() - start;
    }

    /** Nanoseconds of one copy of {@code source.length()} bytes from device memory into the pinned scratch. */
    public long timeToHost(DeviceSlice source) {
        long start = System.nanoTime();
        stream.copyToHost(source.buffer(), source.offset(), scratch.segment(), source.length(), event);
        await();
        return System.nanoTime() - start;
    }

    private void await() {
        long deadline = System.nanoTime() + COPY_TIMEOUT.toNanos();
        while (!event.isComplete()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("a device copy did not finish within " + COPY_TIMEOUT);
            }
            Thread.onSpinWait();
        }
    }

    public DeviceMemory memory() {
        return memory;
    }

    @Override
    public void close() {
        event.close();
        stream.close();
        scratch.close();
        scratch.onClose().block(COPY_TIMEOUT);
        arena.close();
    }
}
