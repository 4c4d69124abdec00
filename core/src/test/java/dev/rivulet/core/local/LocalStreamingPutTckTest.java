package dev.rivulet.core.local;

import dev.rivulet.conformance.StreamingPutSubscriberTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

public class LocalStreamingPutTckTest extends StreamingPutSubscriberTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new LocalTransportProvider().open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return "local://" + name + "-" + LocalConformanceTest.NAMES.incrementAndGet();
    }
}
