package dev.rivulet.faults;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.spi.TransportProvider;
import dev.rivulet.rdma.fabric.FabricTransportProvider;
import dev.rivulet.rio.uring.UringTransportProvider;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/** The transports every scenario runs on, with how a server binds to an address inside its namespace. */
enum FaultTransport {

    IO_URING("io_uring", UringTransportProvider::new, "uring://%s:0", List.of()),
    LIBFABRIC_TCP("libfabric tcp", FabricTransportProvider::new, "fabric://%s:0?provider=tcp",
            List.of("fabric.provider=tcp"));

    private final String label;
    private final Supplier<TransportProvider> provider;
    private final String bindPattern;
    private final List<String> options;
    private volatile Optional<String> unavailable;

    FaultTransport(String label, Supplier<TransportProvider> provider, String bindPattern, List<String> options) {
        this.label = label;
        this.provider = provider;
        this.bindPattern = bindPattern;
        this.options = options;
    }

    String providerClass() {
        return provider.get().getClass().getName();
    }

    String bindAddress(String host) {
        return bindPattern.formatted(host);
    }

    /** Options both sides always get (the libfabric provider name). */
    List<String> options() {
        return options;
    }

    /**
     * Why this transport cannot run here, or empty: the provider's own availability, then opening it for real once
     * (libfabric may load and still lack the tcp provider).
     */
    synchronized Optional<String> unavailable() {
        if (unavailable == null) {
            TransportProvider p = provider.get();
            if (!p.availability().available()) {
                unavailable = Optional.of(label + " is unavailable: " + p.availability().reason());
            } else {
                TransportConfig config = TransportConfig.defaults();
                for (String o : options) {
                    config = config.option(o.substring(0, o.indexOf('=')), o.substring(o.indexOf('=') + 1));
                }
                try {
                    Transport t = p.open(config);
                    t.dispose();
                    unavailable = Optional.empty();
                } catch (RuntimeException e) {
                    unavailable = Optional.of(label + " cannot open: " + e.getMessage());
                }
            }
        }
        return unavailable;
    }

    @Override
    public String toString() {
        return label;
    }
}
