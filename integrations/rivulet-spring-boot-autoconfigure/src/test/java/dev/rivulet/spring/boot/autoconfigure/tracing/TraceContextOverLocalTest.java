package dev.rivulet.spring.boot.autoconfigure.tracing;

import org.springframework.boot.test.context.SpringBootTest;

/** The trace followed over the in-JVM local transport. */
@SpringBootTest(classes = AbstractTraceContextTest.TracedApplication.class, properties = {
        "rivulet.server.address=local://boot-tracing-test", "management.tracing.sampling.probability=1.0"})
class TraceContextOverLocalTest extends AbstractTraceContextTest {
}
