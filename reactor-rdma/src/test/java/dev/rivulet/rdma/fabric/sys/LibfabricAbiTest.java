package dev.rivulet.rdma.fabric.sys;

import static org.assertj.core.api.Assertions.assertThat;

import dev.rivulet.core.sys.Iovec;
import dev.rivulet.rdma.abi.AbiProbe;

import java.lang.foreign.StructLayout;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks every Java layout and constant of the binding against the installed libfabric headers: a C probe
 * ({@code libfabric_abi_probe.c}, next to this class in the test resources) is compiled with gcc and run, and its
 * {@code sizeof}/{@code offsetof}/constant lines are compared with what the Java types declare.
 *
 * <p>The Java side is enumerated, not listed: every class of the package with a static {@code StructLayout LAYOUT}
 * (and the shared {@link Iovec}) is checked under the C name given by the layout's name, member by member (names
 * are the C field names, nested groups give dotted paths), and every constant of {@link FiConstants} is checked by reflection. In the other
 * direction, every struct and field the probe prints must have a Java counterpart, so neither side can drift
 * silently. Without gcc or the headers the test is skipped with the reason.
 */
class LibfabricAbiTest {

    private static final Logger LOG = LoggerFactory.getLogger(LibfabricAbiTest.class);

    private static final String PROBE_RESOURCE = "libfabric_abi_probe.c";

    @TempDir
    static Path work;

    private static AbiProbe probe;

    @BeforeAll
    static void compileAndRunProbe() throws Exception {
        AbiProbe.Build build = AbiProbe.compile(LibfabricAbiTest.class, PROBE_RESOURCE, work, "c11");
        if (build.lacks("rdma/fabric.h")) {
            AbiProbe.skip("libfabric headers are not installed (apt-get install libfabric-dev): "
                    + build.gcc().firstError());
        }
        probe = AbiProbe.parse(build.run(), "libfabric");
        assertThat(probe.major).as("probe printed no version line").isPositive();
    }

    @Test
    void headersAreTheVersionTheLayoutsWereWrittenFor() {
        // Another libfabric's headers may legitimately differ (1.20 grows fi_domain_attr); the runtime is pinned
        // to the FABRIC_1.3 ABI, so compare only like with like and say so.
        String header = probe.major + "." + probe.minor;
        String binding = FiConstants.FI_MAJOR_VERSION + "." + FiConstants.FI_MINOR_VERSION;
        if (!header.equals(binding)) {
            AbiProbe.skip("installed headers are libfabric " + header + ", the binding's layouts describe " + binding);
        }
    }

    @TestFactory
    Stream<DynamicTest> everyJavaStructMatchesTheHeaders() throws Exception {
        assumeSameVersion();
        return javaLayouts().entrySet().stream().map(e -> DynamicTest.dynamicTest(
                e.getKey() + " (" + e.getValue().getSimpleName() + ")",
                () -> probe.checkStruct(e.getKey(), AbiProbe.layoutOf(e.getValue()))));
    }

    @Test
    void everyProbedStructHasAJavaType() throws Exception {
        assumeSameVersion();
        assertThat(javaLayouts().keySet()).containsExactlyInAnyOrderElementsOf(probe.structs.keySet());
    }

    @Test
    void everyConstantMatchesTheHeaders() throws Exception {
        assumeSameVersion();
        LOG.info("ABI probe: {} constants checked", probe.checkConstants(FiConstants.class));
    }

    /** C struct name → Java class, for every class of the binding's package that declares a StructLayout LAYOUT. */
    private static Map<String, Class<?>> javaLayouts() throws Exception {
        Map<String, Class<?>> byName = new TreeMap<>();
        Map<Class<?>, StructLayout> all = new LinkedHashMap<>(AbiProbe.packageLayouts(FiInfo.class));
        all.put(Iovec.class, Iovec.LAYOUT); // the shared native layer's, which fi_msg and fi_mr_attr point to
        for (Map.Entry<Class<?>, StructLayout> e : all.entrySet()) {
            String cName = e.getValue().name()
                    .orElseThrow(() -> new AssertionError(e.getKey() + ".LAYOUT has no C name"));
            assertThat(byName.put(cName, e.getKey())).as("two Java types for struct %s", cName).isNull();
        }
        return byName;
    }

    private static void assumeSameVersion() {
        Assumptions.assumeTrue(
                probe.major == FiConstants.FI_MAJOR_VERSION && probe.minor == FiConstants.FI_MINOR_VERSION,
                "installed headers are libfabric " + probe.major + "." + probe.minor);
    }
}
