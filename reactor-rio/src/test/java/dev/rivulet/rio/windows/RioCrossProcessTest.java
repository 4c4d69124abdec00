package dev.rivulet.rio.windows;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.conformance.CrossProcessKit;
import dev.rivulet.core.spi.TransportProvider;
import org.junit.jupiter.api.BeforeAll;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The two-process part of the kit over Registered I/O. Runs on Windows only; skipped elsewhere with why. */
class RioCrossProcessTest extends CrossProcessKit {

    @BeforeAll
    static void requireRio() {
        Requirements.assume(new RioTransportProvider().availability(), "rio");
    }

    @Override
    protected TransportProvider provider() {
        return new RioTransportProvider();
    }

    @Override
    protected String peerBindAddress() {
        return "rio://127.0.0.1:0";
    }
}
