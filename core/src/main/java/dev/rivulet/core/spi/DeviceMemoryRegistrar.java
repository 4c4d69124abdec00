package dev.rivulet.core.spi;

import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.MemoryRegion;
import org.jspecify.annotations.Nullable;

/**
 * Accelerator memory registered with a transport's provider as it is, so that puts and gets move it without a copy
 * through the host (GPUDirect RDMA where the provider and the NIC support it). A transport that can offer it returns
 * one from {@code Transport.extension(DeviceMemoryRegistrar.class)}; modules that move device memory (Rivulet's
 * {@code gpu} module) look it up there instead of naming the backend's classes.
 *
 * <p>Devices are named by their CUDA ordinal; addresses are device virtual addresses.
 */
@Incubating
public interface DeviceMemoryRegistrar {

    /** Whether registrations can work on this transport now, and when not, why (the provider did not report it). */
    Availability support();

    /**
     * Registers CUDA memory {@code [address, address + length)} of {@code device} with the transport's memory
     * domain, allowing grants of {@code grantable}. The region is an ordinary region of the domain: its slices go to
     * {@code put}, {@code get} and grants. Close it before freeing the device memory.
     *
     * @throws dev.rivulet.core.error.TransportUnavailableException when {@link #support()} says no
     * @throws ProviderException when the provider refuses the memory (its code says why)
     */
    MemoryRegion registerCuda(long address, long length, int device, Access... grantable);

    /**
     * What the provider answers for a CUDA registration of {@code [address, address + length)} even where
     * {@link #support()} says no, closing the region at once: null when it accepted (which proves nothing where
     * support is missing), else its refusal. For telling a user why a platform cannot do it.
     */
    @Nullable ProviderException probeCuda(long address, long length, int device);
}
