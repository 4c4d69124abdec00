package dev.rivulet.spring.boot.autoconfigure;

import org.junit.jupiter.api.BeforeAll;
import org.springframework.boot.test.context.SpringBootTest;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.Transports;

/**
 * The application served over io_uring on the loopback interface; skipped, with the kernel's reason, where io_uring
 * is unavailable (before the application starts, which would otherwise fail saying the same).
 */
@SpringBootTest(classes = AbstractRivuletApplicationTest.GreetingApplication.class,
        properties = "rivulet.server.address=uring://127.0.0.1:0")
class RivuletApplicationOverIoUringTest extends AbstractRivuletApplicationTest {

    @BeforeAll
    static void requireIoUring() {
        Requirements.assume(Transports.provider("io_uring").orElseThrow().availability(), "io_uring");
    }
}
