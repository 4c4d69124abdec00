package dev.rivulet.rio.windows;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.TransportOption;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.core.spi.TransportProvider;
import dev.rivulet.rio.RioOptions;
import dev.rivulet.rio.windows.sys.Ws2_32;

import java.util.List;

/**
 * Windows Registered I/O ({@code rio://host:port}), see {@link RioTransport}. Off Windows it reports itself
 * unavailable with the reason ("requires Windows") and loads nothing. Written against the documented API, never run
 * (this project's machines are Linux): see docs/rio.md for what has run and what has not.
 */
public final class RioTransportProvider implements TransportProvider {

    static final String NAME = "rio";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String scheme() {
        return "rio";
    }

    @Override
    public int priority() {
        return 10;
    }

    @Override
    public Availability availability() {
        return Ws2_32.availability();
    }

    @Override
    public Transport open(TransportConfig config) {
        Availability a = availability();
        if (!a.available()) {
            throw new TransportUnavailableException("transport 'rio' is unavailable: " + a.reason());
        }
        return new RioTransport(config);
    }

    @Override
    public List<TransportOption<?>> options() {
        return RioOptions.ALL;
    }
}
