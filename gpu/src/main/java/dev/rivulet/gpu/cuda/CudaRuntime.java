package dev.rivulet.gpu.cuda;

import jcuda.runtime.JCuda;
import jcuda.runtime.cudaError;

/**
 * The CUDA runtime calls Rivulet makes, through JCuda, turned into {@link CudaException}s: the native binding,
 * kept apart from the memory type built on it. JCuda is used with its exceptions off (its default): every call
 * returns a {@code cudaError_t}; a JVM where another library turned them on gets JCuda's exception text instead.
 */
final class CudaRuntime {

    static final int SUCCESS = cudaError.cudaSuccess;
    static final int NOT_READY = cudaError.cudaErrorNotReady;

    private CudaRuntime() {
    }

    /** Throws {@link CudaException} unless {@code rc} is success. */
    static void check(String call, int rc) {
        if (rc != SUCCESS) {
            throw error(call, rc);
        }
    }

    static CudaException error(String call, int rc) {
        return new CudaException(call, rc, name(rc), text(rc));
    }

    /** JCuda's exception (only where exceptions were turned on globally) as a {@link CudaException}. */
    static CudaException error(String call, jcuda.CudaException e) {
        return new CudaException(call, -1, "jcudaException", e.getMessage());
    }

    static String name(int rc) {
        try {
            return JCuda.cudaGetErrorName(rc);
        } catch (RuntimeException | LinkageError e) {
            return cudaError.stringFor(rc);
        }
    }

    static String text(int rc) {
        try {
            return JCuda.cudaGetErrorString(rc);
        } catch (RuntimeException | LinkageError e) {
            return "";
        }
    }

    /** Makes {@code device} current on the calling thread (cheap when it already is). */
    static void setDevice(int device) {
        try {
            int rc = JCuda.cudaSetDevice(device);
            if (rc != SUCCESS) {
                throw error("cudaSetDevice(" + device + ")", rc);
            }
        } catch (jcuda.CudaException e) {
            throw error("cudaSetDevice", e);
        }
    }
}
