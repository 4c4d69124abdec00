package dev.rivulet.rio.shm;

import dev.rivulet.conformance.ResumeConformance;
import org.junit.jupiter.api.BeforeAll;

/**
 * Resumable sessions over shm://, connections broken by closing their endpoints while both sides live on (a peer
 * process that restarts is a new session, which the kit checks too).
 */
class ShmResumeTest extends ResumeConformance {

    @BeforeAll
    static void requireShm() {
        ShmTests.requireShm();
    }

    @Override
    protected String bindAddress(String name) {
        return ShmTests.address(name);
    }
}
