package dev.rivulet.rio.shm;

import dev.rivulet.conformance.TransportConformanceKit;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

import static org.assertj.core.api.Assertions.assertThat;

/** Two shm transports in one JVM against the whole conformance kit; nothing may be left in /dev/shm after a test. */
class ShmConformanceTest extends TransportConformanceKit {

    @BeforeAll
    static void requireShm() {
        ShmTests.requireShm();
    }

    @Override
    protected Transport openTransport(TransportConfig config) {
        return ShmTests.open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return ShmTests.address(name);
    }

    @AfterEach
    void nothingLeftInDevShm() {
        assertThat(ShmTests.filesOf(ProcessHandle.current().pid())).isEmpty();
    }
}
