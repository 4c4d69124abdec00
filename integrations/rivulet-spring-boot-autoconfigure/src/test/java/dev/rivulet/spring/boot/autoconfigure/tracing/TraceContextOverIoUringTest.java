package dev.rivulet.spring.boot.autoconfigure.tracing;

import org.junit.jupiter.api.BeforeAll;
import org.springframework.boot.test.context.SpringBootTest;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.Transports;

/** The trace followed over io_uring on the loopback interface; skipped where io_uring is unavailable. */
@SpringBootTest(classes = AbstractTraceContextTest.TracedApplication.class, properties = {
        "rivulet.server.address=uring://127.0.0.1:0", "management.tracing.sampling.probability=1.0"})
class TraceContextOverIoUringTest extends AbstractTraceContextTest {

    @BeforeAll
    static void requireIoUring() {
        Requirements.assume(Transports.provider("io_uring").orElseThrow().availability(), "io_uring");
    }
}
