package dev.rivulet.rdma;

import dev.rivulet.core.Transport;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.rdma.fabric.HmemRegistration;
import org.jspecify.annotations.Nullable;

/**
 * CUDA device memory registered with a libfabric transport ({@code FI_HMEM}), for modules that move device memory
 * without staging it through the host (the {@code gpu} module's direct path). Needs a libfabric built with CUDA
 * support and a provider that reports {@code FI_HMEM}; Debian 12's libfabric 1.17 is neither, and there
 * {@link #support(Transport)} says so.
 */
public final class FabricDeviceMemory {

    /** {@code FI_HMEM_CUDA}: the {@code fi_hmem_iface} of CUDA memory. */
    private static final int FI_HMEM_CUDA = dev.rivulet.rdma.fabric.sys.FiConstants.FI_HMEM_CUDA;

    private FabricDeviceMemory() {
    }

    /** Whether {@code transport} can register device memory, and when not, why. */
    public static Availability support(Transport transport) {
        return HmemRegistration.support(transport);
    }

    /**
     * Registers CUDA device memory {@code [address, address + length)} of device {@code device} (the CUDA ordinal)
     * with {@code transport}'s memory domain. Close the region before freeing the device memory.
     *
     * @throws dev.rivulet.core.error.TransportUnavailableException when the provider did not report FI_HMEM
     * @throws ProviderException when the provider refuses the registration (code 38, FI_ENOSYS: no CUDA support)
     */
    public static MemoryRegion registerCuda(Transport transport, long address, long length, int device,
                                            Access... grantable) {
        return HmemRegistration.register(transport, address, length, FI_HMEM_CUDA, device, grantable);
    }

    /**
     * What the provider answers for a CUDA registration of {@code [address, address + length)} even where it did
     * not report FI_HMEM: null when it accepted (which proves nothing then, see {@link #support}), else its
     * refusal. For diagnosing a platform: a libfabric without CUDA support answers 38 (FI_ENOSYS).
     */
    public static @Nullable ProviderException probeCudaRegistration(Transport transport, long address,
                                                                    long length, int device) {
        return HmemRegistration.tryRegistration(transport, address, length, FI_HMEM_CUDA, device);
    }
}
