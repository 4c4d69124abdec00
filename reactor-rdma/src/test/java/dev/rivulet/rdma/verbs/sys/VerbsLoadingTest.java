package dev.rivulet.rdma.verbs.sys;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** How the binding reports a missing or wrong library: a reason, never an error at class loading. */
class VerbsLoadingTest {

    @Test
    void aMissingLibibverbsIsAReasonNamingTheLibraryAndTheProperty() {
        assertThat(Ibverbs.check("/nonexistent/rivulet/libibverbs.so.1")).hasValueSatisfying(r -> assertThat(r)
                .startsWith("cannot load /nonexistent/rivulet/libibverbs.so.1")
                .contains("-Ddev.rivulet.verbs.library"));
    }

    @Test
    void aMissingLibrdmacmIsAReasonNamingTheLibraryAndTheProperty() {
        assertThat(Rdmacm.check("/nonexistent/rivulet/librdmacm.so.1")).hasValueSatisfying(r -> assertThat(r)
                .startsWith("cannot load /nonexistent/rivulet/librdmacm.so.1")
                .contains("-Ddev.rivulet.rdmacm.library"));
    }

    @Test
    void aLibraryWithoutTheVerbsFunctionsIsRefusedByTheFirstMissingOne() {
        assertThat(Ibverbs.check("libc.so.6")).hasValueSatisfying(r -> assertThat(r)
                .isEqualTo("cannot bind libc.so.6: no symbol ibv_get_device_list (rdma-core 44 or newer is needed)"));
        assertThat(Rdmacm.check("libc.so.6")).hasValueSatisfying(r -> assertThat(r)
                .isEqualTo("cannot bind libc.so.6: no symbol rdma_create_event_channel"));
    }

    @Test
    void theInstalledLibrariesBindEveryFunctionTheBindingUses() {
        Assumptions.assumeTrue(Ibverbs.isAvailable(), () -> Ibverbs.unavailableReason().orElse(""));
        assertThat(Ibverbs.check(Ibverbs.LIBRARY)).isEmpty();
        Assumptions.assumeTrue(Rdmacm.isAvailable(), () -> Rdmacm.unavailableReason().orElse(""));
        assertThat(Rdmacm.check(Rdmacm.LIBRARY)).isEmpty();
    }

    @Test
    void statusTextsComeFromTheLibraryOrTheirCNames() {
        String text = Ibverbs.wcStatusStr(VerbsConstants.IBV_WC_REM_ACCESS_ERR);
        assertThat(text).isIn("remote access error", "IBV_WC_REM_ACCESS_ERR");
        assertThat(WcStatusNames.name(VerbsConstants.IBV_WC_RETRY_EXC_ERR)).isEqualTo("IBV_WC_RETRY_EXC_ERR");
        assertThat(WcStatusNames.name(77)).isEqualTo("unknown status 77");
    }

    /** The whole path in a fresh JVM, where the system properties are read: the provider says which file is missing. */
    @Test
    void aProcessPointedAtAMissingLibraryFindsTheProviderUnavailableWithThatReason() throws Exception {
        String out = runReport("-Ddev.rivulet.verbs.library=/nonexistent/rivulet/libibverbs.so.1",
                "-Ddev.rivulet.rdmacm.library=/nonexistent/rivulet/librdmacm.so.1");
        assertThat(out).contains("ibverbs: cannot load /nonexistent/rivulet/libibverbs.so.1")
                .contains("rdmacm: cannot load /nonexistent/rivulet/librdmacm.so.1")
                .contains("provider: unavailable: cannot load /nonexistent/rivulet/libibverbs.so.1")
                .contains("status text: IBV_WC_REM_ACCESS_ERR");
    }

    private static String runReport(String... properties) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("--enable-native-access=ALL-UNNAMED");
        command.addAll(List.of(properties));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(AvailabilityReport.class.getName());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] bytes = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the report finished").isTrue();
        String out = new String(bytes, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("report output:%n%s", out).isZero();
        return out;
    }
}
