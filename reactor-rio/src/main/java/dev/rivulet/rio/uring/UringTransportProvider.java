package dev.rivulet.rio.uring;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.TransportOption;
import dev.rivulet.core.error.TransportUnavailableException;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.core.spi.TransportProvider;
import dev.rivulet.rio.UringOptions;
import dev.rivulet.rio.uring.sys.IoUring;

import java.util.List;

/** Provides TCP over io_uring ({@code uring://host:port}) where the kernel lets this process create a ring. */
public final class UringTransportProvider implements TransportProvider {

    @Override
    public String name() {
        return UringTransport.NAME;
    }

    @Override
    public String scheme() {
        return UringTransport.SCHEME;
    }

    @Override
    public int priority() {
        return 10;
    }

    @Override
    public Availability availability() {
        return IoUring.availability();
    }

    @Override
    public Transport open(TransportConfig config) {
        Availability a = availability();
        if (!a.available()) {
            throw new TransportUnavailableException("io_uring is unavailable: " + a.reason());
        }
        return new UringTransport(config);
    }

    @Override
    public List<TransportOption<?>> options() {
        return UringOptions.ALL;
    }
}
