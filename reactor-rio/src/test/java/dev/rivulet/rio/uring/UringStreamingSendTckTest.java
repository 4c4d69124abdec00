package dev.rivulet.rio.uring;

import dev.rivulet.conformance.StreamingSendSubscriberTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

public class UringStreamingSendTckTest extends StreamingSendSubscriberTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new UringTransportProvider().open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return "uring://127.0.0.1:0";
    }
}
