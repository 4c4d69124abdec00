package dev.rivulet.rdma.fabric;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.TransportOption;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.core.spi.TransportProvider;
import dev.rivulet.rdma.FabricOptions;
import dev.rivulet.rdma.fabric.sys.Libfabric;

import java.util.List;
import java.util.Map;

/**
 * libfabric ({@code fabric://host:port?provider=tcp}). Available when {@code libfabric.so.1} loads; which providers
 * exist is decided per transport (the {@code provider} option), with a clear error listing what fi_getinfo offers.
 */
public final class FabricTransportProvider implements TransportProvider {

    @Override
    public String name() {
        return "libfabric";
    }

    @Override
    public String scheme() {
        return FabricAddress.SCHEME;
    }

    @Override
    public int priority() {
        return 20;
    }

    @Override
    public Availability availability() {
        return Libfabric.isAvailable() ? Availability.yes()
                : Availability.no(Libfabric.unavailableReason().orElse("libfabric.so.1 not found"));
    }

    @Override
    public Transport open(TransportConfig config) {
        Availability a = availability();
        if (!a.available()) {
            throw new TransportUnavailableException("libfabric is unavailable: " + a.reason());
        }
        return FabricTransport.open(config);
    }

    @Override
    public List<TransportOption<?>> options() {
        return FabricOptions.ALL;
    }

    /** The provider an address names ({@code ?provider=shm}), {@code tcp} when it names none. */
    @Override
    public Map<String, String> optionsFor(String address) {
        return Map.of(FabricOptions.PROVIDER.key(),
                FabricAddress.parse(address, FabricOptions.PROVIDER.defaultValue()).provider());
    }
}
