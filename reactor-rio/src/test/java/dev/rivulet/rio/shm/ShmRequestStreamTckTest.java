package dev.rivulet.rio.shm;

import dev.rivulet.conformance.InteractionPublisherTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

/** The Reactive Streams TCK on the request-stream answers over shm:// in one JVM. */
public class ShmRequestStreamTckTest extends InteractionPublisherTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return ShmTests.open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return ShmTests.address(name);
    }
}
