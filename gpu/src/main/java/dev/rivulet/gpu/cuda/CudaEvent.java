package dev.rivulet.gpu.cuda;

import dev.rivulet.gpu.spi.AbstractCopyEvent;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaEvent_t;

/** A {@code cudaEvent_t} without timing (the cheapest kind), queried with {@code cudaEventQuery}. */
final class CudaEvent extends AbstractCopyEvent {

    final cudaEvent_t event;

    CudaEvent(CudaStream stream, cudaEvent_t event) {
        super(stream);
        this.event = event;
    }

    @Override
    public boolean isComplete() {
        int rc;
        try {
            rc = JCuda.cudaEventQuery(event);
        } catch (jcuda.CudaException e) {
            throw CudaRuntime.error("cudaEventQuery", e);
        }
        if (rc == CudaRuntime.SUCCESS) {
            return true;
        }
        if (rc == CudaRuntime.NOT_READY) {
            return false;
        }
        throw CudaRuntime.error("cudaEventQuery", rc);
    }

    @Override
    protected void destroy() {
        CudaRuntime.check("cudaEventDestroy", JCuda.cudaEventDestroy(event));
    }
}
