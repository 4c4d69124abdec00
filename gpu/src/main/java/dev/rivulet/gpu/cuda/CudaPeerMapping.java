package dev.rivulet.gpu.cuda;

import dev.rivulet.gpu.PeerMapping;

/**
 * Device memory of another allocation as CUDA streams copy to and from it: an allocation of another process opened
 * with {@code cudaIpcOpenMemHandle} (closed with {@code cudaIpcCloseMemHandle}), or a buffer of this process seen
 * as it is (nothing to close).
 */
final class CudaPeerMapping extends PeerMapping {

    private final boolean opened;

    private CudaPeerMapping(long address, long length, int device, boolean opened) {
        super(address, length, device);
        this.opened = opened;
    }

    /** Opens {@code handle} on {@code device} (made current). */
    static CudaPeerMapping open(byte[] handle, long length, int device) {
        CudaRuntime.setDevice(device);
        return new CudaPeerMapping(CudaIpc.open(handle), length, device, true);
    }

    /** A buffer of this process, of {@code device}. */
    static CudaPeerMapping local(long address, long length, int device) {
        return new CudaPeerMapping(address, length, device, false);
    }

    @Override
    protected void unmap() {
        if (opened) {
            CudaRuntime.setDevice(device());
            CudaIpc.close(address());
        }
    }
}
