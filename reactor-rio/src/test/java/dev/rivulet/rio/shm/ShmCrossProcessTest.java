package dev.rivulet.rio.shm;

import dev.rivulet.conformance.CrossProcessKit;
import dev.rivulet.core.spi.TransportProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The two-process part of the conformance kit over shm: plain, with a shared secret, and with one-sided data copied
 * across with {@code process_vm_readv/writev} instead of staged.
 */
class ShmCrossProcessTest {

    @BeforeAll
    static void requireShm() {
        ShmTests.requireShm();
    }

    abstract static class OnThisHost extends CrossProcessKit {
        @Override
        protected TransportProvider provider() {
            return new ShmTransportProvider();
        }

        @Override
        protected String peerBindAddress() {
            return ShmTests.address("kit");
        }

        /** The kit checks the killed peer's files; this process must not leave any either. */
        @AfterEach
        void nothingOfThisProcessLeftInDevShm() {
            assertThat(ShmTests.filesOf(ProcessHandle.current().pid())).isEmpty();
        }
    }

    @Nested
    class Plain extends OnThisHost {
    }

    @Nested
    class Authenticated extends OnThisHost {
        @Override
        protected Map<String, String> options() {
            return Map.of("security.secret", "a shared secret of at least sixteen bytes");
        }
    }

    @Nested
    class CrossMemoryAttach extends OnThisHost {
        @Override
        protected Map<String, String> options() {
            return Map.of("shm.crossMemoryAttach", "true");
        }
    }
}
