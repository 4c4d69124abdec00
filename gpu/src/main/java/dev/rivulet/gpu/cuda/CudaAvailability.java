package dev.rivulet.gpu.cuda;

import dev.rivulet.core.spi.Availability;
import jcuda.runtime.JCuda;
import jcuda.runtime.cudaError;

/**
 * Whether CUDA can be used in this process, found once. Loading JCuda's native library without a driver does not
 * fail (its runtime is linked statically and looks for the driver on first use), but a missing or foreign native
 * library throws {@link LinkageError}s: every failure becomes a reason here and nothing escapes.
 */
final class CudaAvailability {

    private static final Availability RESULT = probe();

    private CudaAvailability() {
    }

    static Availability get() {
        return RESULT;
    }

    private static Availability probe() {
        try {
            int[] count = new int[1];
            int rc = JCuda.cudaGetDeviceCount(count);
            if (rc == cudaError.cudaErrorInsufficientDriver) {
                return Availability.no("no CUDA driver (or one older than CUDA 12, which JCuda " + jcudaVersion()
                        + " needs): cudaGetDeviceCount returned cudaErrorInsufficientDriver (" + rc + ")");
            }
            if (rc == cudaError.cudaErrorNoDevice || (rc == cudaError.cudaSuccess && count[0] == 0)) {
                return Availability.no("no CUDA device (cudaGetDeviceCount: " + CudaRuntime.name(rc) + ", "
                        + count[0] + " devices)");
            }
            if (rc != cudaError.cudaSuccess) {
                return Availability.no("cudaGetDeviceCount failed: " + CudaRuntime.name(rc) + " (" + rc + ")");
            }
            int[] driver = new int[1];
            JCuda.cudaDriverGetVersion(driver);
            return new Availability(true, count[0] + " CUDA device(s), driver " + version(driver[0]) + ", JCuda "
                    + jcudaVersion());
        } catch (LinkageError e) {
            return Availability.no("JCuda native library missing or not loadable: " + firstLine(e));
        } catch (RuntimeException e) {
            return Availability.no("CUDA could not be initialised: " + firstLine(e));
        }
    }

    private static String version(int v) {
        return v / 1000 + "." + (v % 1000) / 10;
    }

    private static String jcudaVersion() {
        try {
            return jcuda.JCudaVersion.get();
        } catch (RuntimeException | LinkageError e) {
            return "12";
        }
    }

    private static String firstLine(Throwable t) {
        String m = String.valueOf(t.getMessage());
        int nl = m.indexOf('\n');
        return t.getClass().getSimpleName() + ": " + (nl < 0 ? m : m.substring(0, nl));
    }
}
