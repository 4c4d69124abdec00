package dev.rivulet.rio.uring;

import dev.rivulet.conformance.RequestChannelSubscriberTck;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

/** The Reactive Streams TCK on the request-channel's subscriber over io_uring. */
public class UringRequestChannelSubscriberTckTest extends RequestChannelSubscriberTck {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new UringTransportProvider().open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return "uring://127.0.0.1:0";
    }
}
