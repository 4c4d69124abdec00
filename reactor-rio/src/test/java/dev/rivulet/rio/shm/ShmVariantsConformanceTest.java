package dev.rivulet.rio.shm;

import dev.rivulet.conformance.TransportConformanceKit;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.rio.ShmOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The conformance kit again on the transport's other paths: one-sided data copied across with
 * {@code process_vm_readv/writev}, and the smallest ring and pool, so that records wrap, the ring and the pool run
 * full and everything waits for room.
 */
class ShmVariantsConformanceTest {

    @BeforeAll
    static void requireShm() {
        ShmTests.requireShm();
    }

    abstract static class Variant extends TransportConformanceKit {
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

    @Nested
    class CrossMemoryAttach extends Variant {
        @Override
        protected TransportConfig config() {
            return TransportConfig.defaults().option(ShmOptions.CROSS_MEMORY_ATTACH, true);
        }
    }

    @Nested
    class SmallestRingAndPool extends Variant {
        @Override
        protected TransportConfig config() {
            return TransportConfig.defaults().option(ShmOptions.RING_BYTES, 16 << 10)
                    .option(ShmOptions.POOL_BYTES, 64 << 10).option(ShmOptions.LARGE_MESSAGE_THRESHOLD, 256);
        }
    }
}
