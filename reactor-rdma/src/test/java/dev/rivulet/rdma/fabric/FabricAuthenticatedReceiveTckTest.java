package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.ReceivePublisherTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

/** The Reactive Streams TCK on libfabric tcp, every connection authenticated with a shared secret. */
public class FabricAuthenticatedReceiveTckTest extends ReceivePublisherTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new FabricTransportProvider().open(config.option("fabric.provider", "tcp")
                .option("security.secret", FabricSecurityTest.SECRET));
    }

    @Override
    protected String bindAddress(String name) {
        return "fabric://127.0.0.1:0?provider=tcp";
    }
}
