package dev.rivulet.rio.uring;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

/** The conformance kit over io_uring with a shared secret on both sides: every connection proves it first. */
class UringAuthenticatedConformanceTest extends UringConformanceTest {

    static final String SECRET = "the conformance kit's shared secret";

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new UringTransportProvider().open(config.option("security.secret", SECRET));
    }
}
