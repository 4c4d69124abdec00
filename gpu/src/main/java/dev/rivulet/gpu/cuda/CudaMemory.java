package dev.rivulet.gpu.cuda;

import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.gpu.DeviceBuffer;
import dev.rivulet.gpu.PeerMapping;
import dev.rivulet.gpu.spi.AbstractCopyStream;
import dev.rivulet.gpu.spi.AbstractDeviceBuffer;
import dev.rivulet.gpu.spi.AbstractDeviceMemory;
import jcuda.runtime.JCuda;

import java.lang.foreign.MemorySegment;

/**
 * CUDA device memory through JCuda's runtime API: {@code cudaMalloc}/{@code cudaFree}, copies with
 * {@code cudaMemcpyAsync} on non-blocking streams whose ends are {@code cudaEventQuery}'d by the progress loop, and
 * host memory pinned in place with {@code cudaHostRegister}.
 *
 * <p>Optional at run time: {@link #availability()} says whether CUDA can be used here and, when not, why (no
 * driver, no device, JCuda's native library missing); {@link #open(int)} refuses with that reason. Nothing else in
 * Rivulet depends on it.
 */
public final class CudaMemory extends AbstractDeviceMemory {

    public static final String KIND = "cuda";

    private CudaMemory(int device) {
        super(KIND, device);
    }

    /** Whether CUDA can be used in this process; never throws. */
    public static Availability availability() {
        return CudaAvailability.get();
    }

    /**
     * CUDA memory of device {@code device}.
     *
     * @throws TransportUnavailableException with {@link #availability()}'s reason when CUDA cannot be used here
     */
    public static CudaMemory open(int device) {
        Availability a = availability();
        if (!a.available()) {
            throw new TransportUnavailableException("CUDA is unavailable: " + a.reason());
        }
        int[] count = new int[1];
        CudaRuntime.check("cudaGetDeviceCount", JCuda.cudaGetDeviceCount(count));
        if (device < 0 || device >= count[0]) {
            throw new InvalidRequestException("CUDA device " + device + " does not exist (" + count[0] + " found)");
        }
        CudaRuntime.setDevice(device);
        return new CudaMemory(device);
    }

    @Override
    protected AbstractDeviceBuffer allocateBuffer(long bytes) {
        CudaRuntime.setDevice(device());
        RawPointer p = new RawPointer();
        CudaRuntime.check("cudaMalloc(" + bytes + ")", JCuda.cudaMalloc(p, bytes));
        return new CudaBuffer(this, p, bytes);
    }

    @Override
    protected AbstractCopyStream<?> newStream() {
        return new CudaStream(this);
    }

    @Override
    protected void pinHost(MemorySegment segment) {
        CudaRuntime.setDevice(device());
        CudaRuntime.check("cudaHostRegister", JCuda.cudaHostRegister(new RawPointer(segment.address()),
                segment.byteSize(), JCuda.cudaHostRegisterDefault));
    }

    /** CUDA IPC works wherever CUDA does on Linux (the only platform JCuda's natives are taken for here). */
    @Override
    public Availability ipcAvailability() {
        return availability();
    }

    @Override
    public byte[] exportIpc(DeviceBuffer buffer) {
        checkOwn(buffer);
        CudaRuntime.setDevice(device());
        return CudaIpc.export(buffer.address());
    }

    @Override
    public PeerMapping openIpc(byte[] handle, long length) {
        return CudaPeerMapping.open(handle, length, device());
    }

    /** A CUDA buffer of this process, of any device: its copies go peer to peer when the devices differ. */
    @Override
    public PeerMapping mapLocal(DeviceBuffer exported) {
        if (!(exported instanceof CudaBuffer)) {
            throw new InvalidRequestException("not a CUDA buffer: " + exported);
        }
        return CudaPeerMapping.local(exported.address(), exported.length(), exported.memory().device());
    }

    private void checkOwn(DeviceBuffer buffer) {
        if (buffer.memory() != this) {
            throw new InvalidRequestException("buffer does not belong to " + this);
        }
    }

    @Override
    protected void unpinHost(MemorySegment segment) {
        CudaRuntime.check("cudaHostUnregister", JCuda.cudaHostUnregister(new RawPointer(segment.address())));
    }
}
