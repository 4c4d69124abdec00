package dev.rivulet.core.local;

import dev.rivulet.core.Endpoint;
import dev.rivulet.core.engine.AbstractListener;

/** A bound {@code local://name}; connecting endpoints are queued until its subscriber takes them. */
final class LocalListener extends AbstractListener {

    private final LocalTransport transport;
    private final String name;

    LocalListener(LocalTransport transport, String name) {
        this.transport = transport;
        this.name = name;
    }

    LocalTransport transport() {
        return transport;
    }

    /** Offers an accepted endpoint; false once disposed. */
    boolean accept(Endpoint e) {
        return offer(e);
    }

    @Override
    public String address() {
        return "local://" + name;
    }

    @Override
    protected void stop() {
        LocalFabric.unbind(name, this);
    }
}
