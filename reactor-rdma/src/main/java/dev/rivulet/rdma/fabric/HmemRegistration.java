package dev.rivulet.rdma.fabric;

import dev.rivulet.core.Transport;
import dev.rivulet.core.error.InvalidRequestException;
import dev.rivulet.core.error.ProviderException;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.memory.Access;
import dev.rivulet.core.memory.MemoryRegion;
import dev.rivulet.core.spi.Availability;
import org.jspecify.annotations.Nullable;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;

/**
 * Registration of accelerator memory ({@code FI_HMEM}) with a libfabric transport's domain, so that puts and gets
 * move it without a host copy (GPUDirect RDMA where the provider and the NIC support it).
 *
 * <p>Two conditions, both checked: the provider must have reported {@code FI_HMEM} when the domain was opened
 * (otherwise it ignores a registration's {@code iface}, as {@code sockets} does, and would treat a device address as
 * host memory), and the registration itself must succeed. A libfabric built without CUDA support (Debian's 1.17)
 * fails the first, and its providers answer {@code fi_mr_regattr} with {@code -FI_ENOSYS}.
 */
public final class HmemRegistration {

    private HmemRegistration() {
    }

    /** Whether {@code transport} is a libfabric transport whose provider reported {@code FI_HMEM}, and why not. */
    public static Availability support(Transport transport) {
        if (!(transport instanceof FabricTransport fabric)) {
            return Availability.no(transport.name() + " is not a libfabric transport");
        }
        FabricDomain d = fabric.domain();
        if (!d.hmem) {
            return Availability.no("libfabric provider '" + d.provider + "' did not report FI_HMEM"
                    + (worthAsking(d.provider) ? "" : cudaDriverPresent() ? " (not asked: shm is host memory only here)"
                    : " (not asked: no CUDA driver in this process)"));
        }
        return Availability.yes();
    }

    /**
     * Registers {@code [address, address + length)} of device {@code device} of interface {@code iface}
     * ({@code FI_HMEM_CUDA}, ...) with {@code transport}'s memory domain, allowing grants of {@code grantable}.
     * The region is an ordinary region of the domain: slices of it go to {@code put}, {@code get} and grants. It
     * must be closed before the device memory is freed.
     *
     * @throws TransportUnavailableException when the provider did not report {@code FI_HMEM}
     * @throws ProviderException             when {@code fi_mr_regattr} refuses the memory (its code says why:
     *                                       38, {@code FI_ENOSYS}, from a libfabric built without the device's
     *                                       support)
     */
    public static MemoryRegion register(Transport transport, long address, long length, int iface, int device,
                                        Access... grantable) {
        if (!(transport instanceof FabricTransport fabric)) {
            throw new InvalidRequestException("device memory registration needs a libfabric transport, not "
                    + transport.name());
        }
        if (address == 0 || length <= 0) {
            throw new InvalidRequestException("device range [0x" + Long.toHexString(address) + ", +" + length
                    + ") is empty");
        }
        FabricDomain d = fabric.domain();
        if (!d.hmem) {
            throw new TransportUnavailableException(support(transport).reason());
        }
        return registerDeclared(transport, d, address, length, iface, device, grantable);
    }

    /**
     * As {@link #register}, without the {@code FI_HMEM} check: what the provider answers for device memory when it
     * was not asked for it (the diagnosis of a platform; a success proves nothing there, the provider may ignore
     * {@code iface}). Closes the region at once.
     *
     * @return null when the provider accepted the registration, else its refusal
     */
    public static @Nullable ProviderException tryRegistration(Transport transport, long address, long length,
                                                              int iface, int device) {
        if (!(transport instanceof FabricTransport fabric)) {
            throw new InvalidRequestException("not a libfabric transport: " + transport.name());
        }
        try {
            registerDeclared(transport, fabric.domain(), address, length, iface, device).close();
            return null;
        } catch (ProviderException e) {
            return e;
        }
    }

    private static MemoryRegion registerDeclared(Transport transport, FabricDomain d, long address, long length,
                                                 int iface, int device, Access... grantable) {
        FabricDomain.DeviceRange range = new FabricDomain.DeviceRange(address, length, iface, device);
        d.declareDevice(range);
        MemoryRegion region;
        try {
            // A native segment over device memory: never dereferenced by Java, it only carries address and length
            // through the memory domain to the provider.
            region = transport.memory().register(MemorySegment.ofAddress(address).reinterpret(length), grantable);
        } catch (RuntimeException e) {
            d.forgetDevice(range);
            throw e;
        }
        region.onClose().subscribe(null, null, () -> d.forgetDevice(range));
        return region;
    }

    /**
     * Whether opening a domain of {@code provider} should ask for {@code FI_HMEM} first: only where a CUDA driver
     * can be loaded (elsewhere no device memory can exist, and the domain stays exactly what it was), and not for
     * {@code shm}, whose device support is copying between GPUs of one host, which Rivulet does not use.
     */
    static boolean worthAsking(String provider) {
        return !"shm".equals(provider) && cudaDriverPresent();
    }

    /** Whether the CUDA driver library ({@code libcuda.so.1}) loads in this process. */
    static boolean cudaDriverPresent() {
        return DriverProbe.PRESENT;
    }

    private static final class DriverProbe {
        static final boolean PRESENT = probe();

        private static boolean probe() {
            try (Arena a = Arena.ofConfined()) {
                SymbolLookup.libraryLookup("libcuda.so.1", a);
                return true;
            } catch (IllegalArgumentException | IllegalCallerException e) {
                return false;
            }
        }
    }
}
