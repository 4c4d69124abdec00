package dev.rivulet.gpu;

import dev.rivulet.core.spi.Availability;
import dev.rivulet.gpu.cuda.CudaMemory;
import org.junit.jupiter.api.Assumptions;

/**
 * {@link IpcContract} with CUDA IPC ({@code cudaIpcGetMemHandle} / {@code cudaIpcOpenMemHandle}) on device 0: the other
 * process maps this one's allocations. Skipped, with the reason, where no CUDA driver is found.
 */
class CudaIpcTest extends IpcContract {

    @Override
    DeviceMemory newMemory() {
        Availability cuda = CudaMemory.availability();
        Assumptions.assumeTrue(cuda.available(), () -> "CUDA is unavailable here: " + cuda.reason());
        return CudaMemory.open(0);
    }

    @Override
    String peerKind() {
        return "cuda";
    }
}
