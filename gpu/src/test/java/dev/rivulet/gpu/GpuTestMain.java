package dev.rivulet.gpu;

import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import org.junit.platform.engine.TestExecutionResult;

import java.io.PrintWriter;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectPackage;

/**
 * Runs this module's tests without Maven, for a machine that has a GPU and a Java runtime but no build: with no
 * argument the CUDA tests, with {@code all} every test of the module, otherwise the named classes. Prints each test
 * as it ends (with the reason of a skip) and a summary; exits 1 when anything failed.
 */
public final class GpuTestMain {

    private GpuTestMain() {
    }

    public static void main(String[] args) {
        LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
        if (args.length == 0) {
            request.selectors(selectClass(CudaAvailabilityTest.class), selectClass(CudaTransfersTest.class),
                    selectClass(CudaIpcTest.class), selectClass("dev.rivulet.gpu.cuda.MovablePointerTest"));
        } else if (args.length == 1 && args[0].equals("all")) {
            request.selectors(selectPackage("dev.rivulet.gpu"));
        } else {
            for (String name : args) {
                request.selectors(selectClass(name.contains(".") ? name : "dev.rivulet.gpu." + name));
            }
        }
        LauncherDiscoveryRequest discovery = request.build();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        TestExecutionListener progress = new TestExecutionListener() {
            @Override
            public void executionSkipped(TestIdentifier test, String reason) {
                System.out.println("SKIPPED " + test.getDisplayName() + ": " + reason);
            }

            @Override
            public void executionFinished(TestIdentifier test, TestExecutionResult result) {
                if (!test.isTest()) {
                    return;
                }
                System.out.println(result.getStatus() + " " + test.getUniqueIdObject().getSegments().get(1)
                        .getValue() + " " + test.getDisplayName()
                        + result.getThrowable().map(t -> ": " + t.toString().lines().findFirst().orElse(""))
                        .orElse(""));
            }
        };
        Launcher launcher = LauncherFactory.create();
        launcher.execute(discovery, summary, progress);
        TestExecutionSummary s = summary.getSummary();
        s.printTo(new PrintWriter(System.out, true));
        s.printFailuresTo(new PrintWriter(System.out, true), 20);
        System.exit(s.getTotalFailureCount() == 0 ? 0 : 1);
    }
}
