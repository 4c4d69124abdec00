package dev.rivulet.core.local;

import dev.rivulet.conformance.RequestChannelSubscriberTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

/** The Reactive Streams TCK on the request-channel's subscriber over the in-JVM transport. */
public class LocalRequestChannelSubscriberTckTest extends RequestChannelSubscriberTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new LocalTransportProvider().open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return "local://" + name + "-" + LocalConformanceTest.NAMES.incrementAndGet();
    }
}
