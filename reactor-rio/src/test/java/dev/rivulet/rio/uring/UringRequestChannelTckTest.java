package dev.rivulet.rio.uring;

import dev.rivulet.conformance.InteractionPublisherTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

/** The Reactive Streams TCK on the request-channel answers over io_uring. */
public class UringRequestChannelTckTest extends InteractionPublisherTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new UringTransportProvider().open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return "uring://127.0.0.1:0";
    }

    @Override
    protected boolean channel() {
        return true;
    }
}
