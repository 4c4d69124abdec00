package dev.rivulet.gpu.cuda;

import dev.rivulet.gpu.spi.AbstractDeviceBuffer;
import jcuda.runtime.JCuda;

/** One {@code cudaMalloc} allocation. */
final class CudaBuffer extends AbstractDeviceBuffer {

    private final RawPointer pointer;

    CudaBuffer(CudaMemory owner, RawPointer pointer, long length) {
        super(owner, pointer.address(), length);
        this.pointer = pointer;
    }

    @Override
    protected void deallocate() {
        CudaRuntime.setDevice(memory().device());
        CudaRuntime.check("cudaFree", JCuda.cudaFree(pointer));
    }
}
