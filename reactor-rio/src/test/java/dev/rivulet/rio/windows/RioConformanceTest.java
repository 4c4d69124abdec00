package dev.rivulet.rio.windows;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.conformance.TransportConformanceKit;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import org.junit.jupiter.api.BeforeAll;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The whole conformance kit over Registered I/O on loopback. Runs on Windows only; skipped elsewhere with why. */
class RioConformanceTest extends TransportConformanceKit {

    @BeforeAll
    static void requireRio() {
        Requirements.assume(new RioTransportProvider().availability(), "rio");
    }

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new RioTransportProvider().open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return "rio://127.0.0.1:0";
    }
}
