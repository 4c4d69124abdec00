package dev.rivulet.core.local;

import dev.rivulet.conformance.InteractionPublisherTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

/** The Reactive Streams TCK on the request-stream answers over the in-JVM transport. */
public class LocalRequestStreamTckTest extends InteractionPublisherTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new LocalTransportProvider().open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return "local://" + name + "-" + LocalConformanceTest.NAMES.incrementAndGet();
    }
}
