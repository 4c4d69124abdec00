package dev.rivulet.core.local;

import dev.rivulet.conformance.ReceivePublisherTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

public class LocalReceiveTckTest extends ReceivePublisherTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new LocalTransportProvider().open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return "local://" + name + "-" + LocalConformanceTest.NAMES.incrementAndGet();
    }
}
