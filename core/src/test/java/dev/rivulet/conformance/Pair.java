package dev.rivulet.conformance;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.Listener;
import dev.rivulet.core.Transport;

import java.time.Duration;

/** A connected client/server endpoint pair over two transports, as the conformance kit uses it. */
public record Pair(Transport serverTransport, Transport clientTransport, Listener listener, Endpoint client,
                   Endpoint server) {

    static final Duration TIMEOUT = Duration.ofSeconds(20);

    /** Binds {@code address} on {@code serverTransport}, connects from {@code clientTransport}. */
    public static Pair connect(Transport serverTransport, Transport clientTransport, String address) {
        Listener l = serverTransport.bind(address).block(TIMEOUT);
        Endpoint c = clientTransport.connect(l.address()).block(TIMEOUT);
        Endpoint s = l.accepted().blockFirst(TIMEOUT);
        return new Pair(serverTransport, clientTransport, l, c, s);
    }

    public void close() {
        client.dispose();
        server.dispose();
        listener.dispose();
        client.onClose().block(TIMEOUT);
        server.onClose().block(TIMEOUT);
    }
}
