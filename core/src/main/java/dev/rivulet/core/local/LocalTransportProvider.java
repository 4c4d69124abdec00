package dev.rivulet.core.local;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.TransportOption;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.core.spi.TransportProvider;

import java.util.List;

/** Provides the in-JVM transport ({@code local://name}); always available, lowest priority. */
public final class LocalTransportProvider implements TransportProvider {

    @Override
    public String name() {
        return LocalTransport.NAME;
    }

    @Override
    public String scheme() {
        return "local";
    }

    @Override
    public int priority() {
        return 0;
    }

    @Override
    public Availability availability() {
        return Availability.yes();
    }

    @Override
    public Transport open(TransportConfig config) {
        return new LocalTransport(config);
    }

    @Override
    public List<TransportOption<?>> options() {
        return LocalOptions.ALL;
    }
}
