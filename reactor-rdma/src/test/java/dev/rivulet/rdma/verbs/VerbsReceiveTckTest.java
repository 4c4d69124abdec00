package dev.rivulet.rdma.verbs;

import dev.rivulet.conformance.ReceivePublisherTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

/** The Reactive Streams TCK on verbs; skipped where the provider is unavailable. */
public class VerbsReceiveTckTest extends ReceivePublisherTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new VerbsTransportProvider().open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return VerbsAddress.uri(VerbsConformanceTest.HOST, 0, "");
    }
}
