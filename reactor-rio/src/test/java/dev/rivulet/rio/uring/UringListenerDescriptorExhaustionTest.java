package dev.rivulet.rio.uring;

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
 * An io_uring listener in a process whose descriptor table runs full (RLIMIT_NOFILE lowered for a child JVM running
 * an {@link EchoPeer}) while connections of it fail ({@link DescriptorExhaustionScenario}): accept fails with EMFILE,
 * the listener logs it and backs off; the failed connections are closed although no class can be loaded meanwhile;
 * once descriptors are free again the other connections still work and new clients are served. Run with the
 * child's classes in folders and in jars, which fail differently when a class is needed late.
 */
@Timeout(240)
class UringListenerDescriptorExhaustionTest {

    @BeforeAll
    static void requireIoUringAndProc() {
        Requirements.assume(new UringTransportProvider().availability(), "io_uring");
        DescriptorExhaustionScenario.assumeSupported();
    }

    @ParameterizedTest(name = "classes in {0}")
    @EnumSource(value = ChildClassPath.class, names = {"FOLDERS", "JARS"})
    void failedConnectionsCloseAndTheListenerKeepsServingAfterRunningOutOfDescriptors(ChildClassPath classes)
            throws Exception {
        DescriptorExhaustionScenario.run(UringTransportProvider.class, "uring://127.0.0.1:0", Map.of(), "EMFILE",
                classes);
    }
}
