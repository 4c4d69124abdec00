package dev.rivulet.rio.transport.rio;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.core.spi.TransportProvider;
import dev.rivulet.rio.windows.RioAvailability;
import dev.rivulet.rio.windows.Ws2_32;

/**
 * Windows Registered I/O ({@code rio://host:port}). Off Windows it reports itself unavailable with the reason
 * ("requires Windows"). The system layer ({@link RioChannel}, {@link RioLoop}) exists and compiles, but connection
 * setup (socket, connect, accept through ws2_32) is not wired yet, so even on Windows it says so instead of
 * pretending: see docs/rio.md for what has run and what has not.
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
        RioAvailability a = Ws2_32.availability();
        if (!a.available()) {
            return Availability.no(a.reason());
        }
        return Availability.no("Registered I/O is present, but the rio transport's connection setup is not "
                + "implemented yet (only its system layer is)");
    }

    @Override
    public Transport open(TransportConfig config) {
        throw new TransportUnavailableException("transport 'rio' is unavailable: " + availability().reason());
    }
}
