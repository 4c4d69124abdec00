package dev.rivulet.gpu.cuda;

import dev.rivulet.gpu.CopyEvent;
import dev.rivulet.gpu.DeviceBuffer;
import dev.rivulet.gpu.PeerMapping;
import dev.rivulet.gpu.spi.AbstractCopyStream;
import jcuda.Pointer;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaEvent_t;
import jcuda.runtime.cudaMemcpyKind;
import jcuda.runtime.cudaStream_t;

import java.lang.foreign.MemorySegment;

/**
 * A non-blocking CUDA stream ({@code cudaStreamNonBlocking}: it does not synchronise with the legacy default
 * stream). Each copy is {@code cudaMemcpyAsync} followed by {@code cudaEventRecord}; with pinned host memory both
 * return once queued. The two JCuda pointers a copy takes are the stream's own, moved to each copy's addresses
 * ({@link MovablePointer}): queuing a copy allocates nothing on the heap.
 */
final class CudaStream extends AbstractCopyStream<CudaEvent> {

    private final int device;
    private final cudaStream_t stream = new cudaStream_t();
    /** Where each copy goes and comes from; guarded by {@code this}, as a copy is queued in one call. */
    private final MovablePointer to = new MovablePointer();
    private final MovablePointer from = new MovablePointer();

    CudaStream(CudaMemory owner) {
        super(owner);
        this.device = owner.device();
        CudaRuntime.setDevice(device);
        CudaRuntime.check("cudaStreamCreateWithFlags",
                JCuda.cudaStreamCreateWithFlags(stream, JCuda.cudaStreamNonBlocking));
    }

    @Override
    protected CudaEvent createEvent() {
        CudaRuntime.setDevice(device);
        cudaEvent_t e = new cudaEvent_t();
        CudaRuntime.check("cudaEventCreateWithFlags", JCuda.cudaEventCreateWithFlags(e, JCuda.cudaEventDisableTiming));
        return new CudaEvent(this, e);
    }

    @Override
    public void copyToHost(DeviceBuffer source, long sourceOffset, MemorySegment host, long bytes, CopyEvent done) {
        CudaEvent e = checkCopy(source, sourceOffset, host, bytes, done);
        enqueue(host.address(), source.address() + sourceOffset, bytes, cudaMemcpyKind.cudaMemcpyDeviceToHost, e);
    }

    @Override
    public void copyToDevice(MemorySegment host, long bytes, DeviceBuffer target, long targetOffset, CopyEvent done) {
        CudaEvent e = checkCopy(target, targetOffset, host, bytes, done);
        enqueue(target.address() + targetOffset, host.address(), bytes, cudaMemcpyKind.cudaMemcpyHostToDevice, e);
    }

    @Override
    public void copyToPeer(DeviceBuffer source, long sourceOffset, PeerMapping target, long targetOffset, long bytes,
                           CopyEvent done) {
        CudaEvent e = checkPeerCopy(source, sourceOffset, target, targetOffset, bytes, done);
        enqueuePeer(target.address() + targetOffset, target.device(), source.address() + sourceOffset, device, bytes,
                e);
    }

    @Override
    public void copyFromPeer(PeerMapping source, long sourceOffset, DeviceBuffer target, long targetOffset,
                             long bytes, CopyEvent done) {
        CudaEvent e = checkPeerCopy(target, targetOffset, source, sourceOffset, bytes, done);
        enqueuePeer(target.address() + targetOffset, device, source.address() + sourceOffset, source.device(), bytes,
                e);
    }

    /**
     * A device-to-device copy: {@code cudaMemcpyAsync} when both sides are this stream's device (an IPC mapping is
     * opened on it), {@code cudaMemcpyPeerAsync} when one lies on another device of this process.
     */
    private void enqueuePeer(long dst, int dstDevice, long src, int srcDevice, long bytes, CudaEvent e) {
        if (dstDevice == srcDevice) {
            enqueue(dst, src, bytes, cudaMemcpyKind.cudaMemcpyDeviceToDevice, e);
            return;
        }
        try {
            CudaRuntime.setDevice(device);
            CudaRuntime.check("cudaMemcpyPeerAsync", JCuda.cudaMemcpyPeerAsync(new RawPointer(dst), dstDevice,
                    new RawPointer(src), srcDevice, bytes, stream));
            CudaRuntime.check("cudaEventRecord", JCuda.cudaEventRecord(e.event, stream));
        } catch (jcuda.CudaException x) {
            throw CudaRuntime.error("cudaMemcpyPeerAsync", x);
        }
    }

    /** Queues a copy between two raw addresses through the stream's own pointers. */
    private void enqueue(long dst, long src, long bytes, int kind, CudaEvent e) {
        if (!MovablePointer.movable()) {
            enqueue(new RawPointer(dst), new RawPointer(src), bytes, kind, e);
            return;
        }
        synchronized (this) {
            enqueue(to.at(dst), from.at(src), bytes, kind, e);
        }
    }

    private void enqueue(Pointer dst, Pointer src, long bytes, int kind, CudaEvent e) {
        try {
            CudaRuntime.setDevice(device);
            int rc = JCuda.cudaMemcpyAsync(dst, src, bytes, kind, stream);
            if (rc != CudaRuntime.SUCCESS) {
                throw CudaRuntime.error("cudaMemcpyAsync", rc);
            }
            rc = JCuda.cudaEventRecord(e.event, stream);
            if (rc != CudaRuntime.SUCCESS) {
                throw CudaRuntime.error("cudaEventRecord", rc);
            }
        } catch (jcuda.CudaException x) {
            throw CudaRuntime.error("cudaMemcpyAsync", x);
        }
    }

    @Override
    protected void destroy() {
        // cudaStreamDestroy returns at once; work still queued completes and the stream's resources go after it.
        CudaRuntime.check("cudaStreamDestroy", JCuda.cudaStreamDestroy(stream));
    }
}
