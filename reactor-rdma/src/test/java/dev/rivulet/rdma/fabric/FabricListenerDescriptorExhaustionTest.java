package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.ChildClassPath;
import dev.rivulet.conformance.DescriptorExhaustionScenario;
import dev.rivulet.conformance.EchoPeer;
import dev.rivulet.conformance.Requirements;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.Map;

/**
 * A libfabric (tcp) listener in a process whose descriptor table runs full (RLIMIT_NOFILE lowered for a child JVM
 * running an {@link EchoPeer}) while connections of it fail ({@link DescriptorExhaustionScenario}): accept fails with
 * "Too many open files", and everything the accept thread does around it (logging, admission, starting the set-up
 * thread) runs in a process that cannot open anything; the failed connections must be closed all the same, and once
 * descriptors are free again the other connections still work and new clients are served. Run with the child's
 * classes in folders and in jars, which fail differently when a class is needed late.
 */
@Timeout(240)
class FabricListenerDescriptorExhaustionTest {

    @BeforeAll
    static void requireLibfabricAndProc() {
        Requirements.assume(new FabricTransportProvider().availability(), "libfabric");
        DescriptorExhaustionScenario.assumeSupported();
    }

    @ParameterizedTest(name = "classes in {0}")
    @EnumSource(value = ChildClassPath.class, names = {"FOLDERS", "JARS"})
    void failedConnectionsCloseAndTheListenerKeepsServingAfterRunningOutOfDescriptors(ChildClassPath classes)
            throws Exception {
        DescriptorExhaustionScenario.run(FabricTransportProvider.class, "fabric://127.0.0.1:0?provider=tcp",
                Map.of("fabric.provider", "tcp"), "Too many open files", classes);
    }
}
