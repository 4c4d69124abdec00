package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.RequestChannelSubscriberTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

/** The Reactive Streams TCK on the request-channel's subscriber over libfabric tcp. */
public class FabricRequestChannelSubscriberTckTest extends RequestChannelSubscriberTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new FabricTransportProvider().open(config.option("fabric.provider", "tcp"));
    }

    @Override
    protected String bindAddress(String name) {
        return "fabric://127.0.0.1:0?provider=tcp";
    }
}
