package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.InteractionPublisherTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

/** The Reactive Streams TCK on the request-channel answers over libfabric tcp. */
public class FabricRequestChannelTckTest extends InteractionPublisherTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new FabricTransportProvider().open(config.option("fabric.provider", "tcp"));
    }

    @Override
    protected String bindAddress(String name) {
        return "fabric://127.0.0.1:0?provider=tcp";
    }

    @Override
    protected boolean channel() {
        return true;
    }
}
