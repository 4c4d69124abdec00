package dev.rivulet.core.local;

import dev.rivulet.conformance.ClaimedSendSubscriberTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

public class LocalClaimedSendTckTest extends ClaimedSendSubscriberTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new LocalTransportProvider().open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return "local://" + name + "-" + LocalConformanceTest.NAMES.incrementAndGet();
    }
}
