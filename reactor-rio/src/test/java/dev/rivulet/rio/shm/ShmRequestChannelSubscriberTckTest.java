package dev.rivulet.rio.shm;

import dev.rivulet.conformance.RequestChannelSubscriberTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

/** The Reactive Streams TCK on the request-channel's subscriber over shm:// in one JVM. */
public class ShmRequestChannelSubscriberTckTest extends RequestChannelSubscriberTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return ShmTests.open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return ShmTests.address(name);
    }
}
