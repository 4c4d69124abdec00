package dev.rivulet.rio.uring;

import dev.rivulet.conformance.StreamingGetSubscriberTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

public class UringStreamingGetTckTest extends StreamingGetSubscriberTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new UringTransportProvider().open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return "uring://127.0.0.1:0";
    }
}
