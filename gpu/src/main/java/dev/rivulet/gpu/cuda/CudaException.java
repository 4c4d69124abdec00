package dev.rivulet.gpu.cuda;

import dev.rivulet.gpu.DeviceMemoryException;

/**
 * A CUDA runtime call failed: carries the CUDA error code ({@link #nativeCode()}) and its name
 * ({@link #errorName()}, e.g. {@code cudaErrorMemoryAllocation}).
 */
public class CudaException extends DeviceMemoryException {

    public CudaException(String call, int code, String errorName, String text) {
        super(call + " failed", CudaMemory.KIND, code, errorName, text);
    }
}
