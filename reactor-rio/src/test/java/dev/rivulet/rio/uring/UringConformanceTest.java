package dev.rivulet.rio.uring;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.conformance.TransportConformanceKit;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.rio.UringOptions;
import org.junit.jupiter.api.BeforeAll;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** io_uring over IPv4 loopback against the whole conformance kit. */
class UringConformanceTest extends TransportConformanceKit {

    @BeforeAll
    static void requireIoUring() {
        Requirements.assume(new UringTransportProvider().availability(), "io_uring");
    }

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new UringTransportProvider().open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return "uring://127.0.0.1:0";
    }

    /** A stream's largest put or get is its largest message: 32 KiB, so that the kit's longer ones go in pieces. */
    @Override
    protected TransportConfig rmaSplittingConfig() {
        return config().option(UringOptions.MAX_MESSAGE_SIZE, 32 << 10);
    }
}
