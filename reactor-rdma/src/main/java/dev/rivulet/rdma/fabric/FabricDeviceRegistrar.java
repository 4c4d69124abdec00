package dev.rivulet.rdma.fabric;

import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.core.spi.DeviceMemoryRegistrar;
import org.jspecify.annotations.Nullable;

import static dev.rivulet.rdma.fabric.sys.FiConstants.FI_HMEM_CUDA;

/**
 * A libfabric transport's registration of CUDA memory ({@code FI_HMEM_CUDA}), as other modules find it through
 * {@code Transport.extension(DeviceMemoryRegistrar.class)}; the checks are {@link HmemRegistration}'s.
 */
final class FabricDeviceRegistrar implements DeviceMemoryRegistrar {

    private final FabricTransport transport;

    FabricDeviceRegistrar(FabricTransport transport) {
        this.transport = transport;
    }

    @Override
    public Availability support() {
        return HmemRegistration.support(transport);
    }

    @Override
    public MemoryRegion registerCuda(long address, long length, int device, Access... grantable) {
        return HmemRegistration.register(transport, address, length, FI_HMEM_CUDA, device, grantable);
    }

    @Override
    public @Nullable ProviderException probeCuda(long address, long length, int device) {
        return HmemRegistration.tryRegistration(transport, address, length, FI_HMEM_CUDA, device);
    }
}
