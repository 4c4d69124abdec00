package dev.rivulet.rio.uring;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.conformance.ResumeConformance;
import org.junit.jupiter.api.BeforeAll;

/** Resumable sessions over io_uring on IPv4 loopback, connections broken by closing their sockets. */
class UringResumeTest extends ResumeConformance {

    @BeforeAll
    static void requireIoUring() {
        Requirements.assume(new UringTransportProvider().availability(), "io_uring");
    }

    @Override
    protected String bindAddress(String name) {
        return "uring://127.0.0.1:0";
    }
}
