package dev.rivulet.samples.kit;

import dev.rivulet.conformance.TransportConformanceKit;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The whole conformance kit against a transport found as an application finds it: by provider name, through the
 * {@code TransportProvider}s listed for {@link java.util.ServiceLoader}. A third-party transport writes exactly this
 * class, with its own provider's name and address scheme.
 */
class LocalTransportConformanceTest extends TransportConformanceKit {

    private static final AtomicInteger NAMES = new AtomicInteger();

    @Override
    protected Transport openTransport(TransportConfig config) {
        return Transports.open("local", config);
    }

    /** Every test binds fresh addresses: listeners of an earlier test may still be closing. */
    @Override
    protected String bindAddress(String name) {
        return "local://kit-" + name + "-" + NAMES.incrementAndGet();
    }
}
