package dev.rivulet.rdma.verbs;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.TransportOption;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.core.spi.TransportProvider;
import dev.rivulet.rdma.VerbsOptions;
import dev.rivulet.rdma.verbs.sys.Ibverbs;

import java.util.List;
import java.util.Map;

/**
 * ibverbs reliable connections ({@code verbs://host:port?device=mlx5_0&port=1}). Available when
 * {@code libibverbs.so.1} loads and lists at least one RDMA device; otherwise unavailable with the reason (library
 * missing, kernel without RDMA support, no device), so {@code Transports.best()} passes over it. Which device and
 * port are used, and whether rdma_cm is there for the default connection kind, is decided when a transport opens.
 */
public final class VerbsTransportProvider implements TransportProvider {

    @Override
    public String name() {
        return "verbs";
    }

    @Override
    public String scheme() {
        return VerbsAddress.SCHEME;
    }

    /** Above libfabric (20): where an RDMA device is present this is the direct path to it. */
    @Override
    public int priority() {
        return 30;
    }

    @Override
    public Availability availability() {
        if (!Ibverbs.isAvailable()) {
            return Availability.no(Ibverbs.unavailableReason().orElse(Ibverbs.LIBRARY + " not found"));
        }
        Ibverbs.DeviceList list = Ibverbs.getDeviceList();
        try {
            return list.count() > 0 ? Availability.yes() : Availability.no(VerbsDevice.noDevice(list.errno()));
        } finally {
            Ibverbs.freeDeviceList(list.list());
        }
    }

    @Override
    public Transport open(TransportConfig config) {
        Availability a = availability();
        if (!a.available()) {
            throw new TransportUnavailableException("verbs is unavailable: " + a.reason());
        }
        return VerbsTransport.open(config);
    }

    @Override
    public List<TransportOption<?>> options() {
        return VerbsOptions.ALL;
    }

    /** The device, port, GID index and connection kind an address names ({@code ?device=mlx5_0}), else defaults. */
    @Override
    public Map<String, String> optionsFor(String address) {
        return VerbsAddress.parse(address).impliedOptions();
    }
}
