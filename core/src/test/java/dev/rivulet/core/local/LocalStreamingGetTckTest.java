package dev.rivulet.core.local;

import dev.rivulet.conformance.StreamingGetSubscriberTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

public class LocalStreamingGetTckTest extends StreamingGetSubscriberTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new LocalTransportProvider().open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return "local://" + name + "-" + LocalConformanceTest.NAMES.incrementAndGet();
    }
}
