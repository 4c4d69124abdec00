package dev.rivulet.gpu.cuda;

import dev.rivulet.core.error.InvalidRequestException;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaIpcMemHandle;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The CUDA IPC calls for device memory, through JCuda's runtime API: {@code cudaIpcGetMemHandle},
 * {@code cudaIpcOpenMemHandle} (with {@code cudaIpcMemLazyEnablePeerAccess}, so a handle of another GPU opens with
 * peer access) and {@code cudaIpcCloseMemHandle}. A handle is 64 opaque bytes naming a whole allocation.
 *
 * <p>JCuda keeps those bytes in the private field {@code reserved} of {@code cudaIpcMemHandle} with no accessor, so
 * they are read and written through a private lookup. That works because this module and JCuda run on the class path
 * (the same unnamed module); on the module path JCuda would have to open {@code jcuda.runtime} to it.
 */
final class CudaIpc {

    /** {@code CUDA_IPC_HANDLE_SIZE}. */
    static final int HANDLE_BYTES = 64;

    private static final VarHandle RESERVED;

    static {
        try {
            RESERVED = MethodHandles.privateLookupIn(cudaIpcMemHandle.class, MethodHandles.lookup())
                    .findVarHandle(cudaIpcMemHandle.class, "reserved", byte[].class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private CudaIpc() {
    }

    /** The handle of the allocation that starts at {@code base} on the current device. */
    static byte[] export(long base) {
        cudaIpcMemHandle handle = new cudaIpcMemHandle();
        CudaRuntime.check("cudaIpcGetMemHandle", JCuda.cudaIpcGetMemHandle(handle, new RawPointer(base)));
        byte[] bytes = (byte[]) RESERVED.get(handle);
        if (bytes == null || bytes.length != HANDLE_BYTES) {
            throw new IllegalStateException("JCuda's cudaIpcMemHandle holds " + (bytes == null ? "no" : bytes.length)
                    + " handle bytes, expected " + HANDLE_BYTES);
        }
        return bytes.clone();
    }

    /** Opens a handle of another process on the current device; returns the address it is mapped at here. */
    static long open(byte[] handleBytes) {
        if (handleBytes.length != HANDLE_BYTES) {
            throw new InvalidRequestException("a CUDA IPC handle has " + HANDLE_BYTES + " bytes, got "
                    + handleBytes.length);
        }
        cudaIpcMemHandle handle = new cudaIpcMemHandle();
        RESERVED.set(handle, handleBytes.clone());
        RawPointer mapped = new RawPointer();
        CudaRuntime.check("cudaIpcOpenMemHandle", JCuda.cudaIpcOpenMemHandle(mapped, handle,
                JCuda.cudaIpcMemLazyEnablePeerAccess));
        return mapped.address();
    }

    /** Unmaps what {@link #open} mapped at {@code address}. */
    static void close(long address) {
        CudaRuntime.check("cudaIpcCloseMemHandle", JCuda.cudaIpcCloseMemHandle(new RawPointer(address)));
    }
}
