package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.ClaimedSendSubscriberTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

/** The Reactive Streams TCK on libfabric tcp. */
public class FabricClaimedSendTckTest extends ClaimedSendSubscriberTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new FabricTransportProvider().open(config.option("fabric.provider", "tcp"));
    }

    @Override
    protected String bindAddress(String name) {
        return "fabric://127.0.0.1:0?provider=tcp";
    }
}
