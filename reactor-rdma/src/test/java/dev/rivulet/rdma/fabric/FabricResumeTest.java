package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.conformance.ResumeConformance;
import org.junit.jupiter.api.BeforeAll;

/** Resumable sessions over libfabric's {@code tcp} provider on loopback, connections broken by closing them. */
class FabricResumeTest extends ResumeConformance {

    @BeforeAll
    static void requireLibfabric() {
        Requirements.assume(new FabricTransportProvider().availability(), "libfabric");
    }

    @Override
    protected String bindAddress(String name) {
        return "fabric://127.0.0.1:0?provider=tcp";
    }
}
