package dev.rivulet.core.local;

import dev.rivulet.conformance.TransportConformanceKit;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

import java.util.concurrent.atomic.AtomicInteger;

/** The in-JVM transport against the whole conformance kit. */
class LocalConformanceTest extends TransportConformanceKit {

    static final AtomicInteger NAMES = new AtomicInteger();

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new LocalTransportProvider().open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return "local://" + name + "-" + NAMES.incrementAndGet();
    }

    /** 4 KiB at most per put or get, so that the kit's longer ones go in pieces. */
    @Override
    protected TransportConfig rmaSplittingConfig() {
        return config().option(LocalOptions.MAX_RMA_SIZE, 4096);
    }
}
