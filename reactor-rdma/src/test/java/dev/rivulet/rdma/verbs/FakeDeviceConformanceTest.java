package dev.rivulet.rdma.verbs;

import dev.rivulet.conformance.TransportConformanceKit;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.progress.IdleStrategy;
import org.junit.jupiter.api.Nested;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * The whole conformance kit over the verbs data path ({@link VerbsWire}, selective signalling, inline sends, the
 * immediate-carried control words, receive posting, error completions, flush by zero-length read) on the software
 * device of {@link FakeVerbs}, which stands in for a NIC behind the same ops table. It proves the wire against the
 * engine's contract here, where no RDMA device exists; it proves nothing about a real device's behaviour.
 */
class FakeDeviceConformanceTest {

    private static final AtomicInteger NAMES = new AtomicInteger();

    abstract static class OnFakeDevice extends TransportConformanceKit {

        TransportConfig configure(TransportConfig config) {
            return config;
        }

        @Override
        protected Transport openTransport(TransportConfig config) {
            FakeVerbs.assumeBuilt();
            // The fake device cannot wake a sleeping polling thread: keep the sleeps short.
            return new FakeVerbsTransport(configure(config)
                    .idleStrategy(() -> IdleStrategy.backoff(100, 10, 10_000, 200_000)));
        }

        @Override
        protected String bindAddress(String name) {
            return "fakeverbs://" + name + "-" + NAMES.incrementAndGet();
        }
    }

    /** The defaults: one signalled request in 16, 128 bytes inline. */
    @Nested
    class Defaults extends OnFakeDevice {
    }

    /** Every request signalled, nothing inline. */
    @Nested
    class EveryRequestSignalled extends OnFakeDevice {
        @Override
        TransportConfig configure(TransportConfig config) {
            return config.option("verbs.signalInterval", "1").option("verbs.maxInline", "0");
        }
    }

    /** Shallow queues and rare signals: the send queue fills, the pending FIFO and partial chains run. */
    @Nested
    class ShallowQueues extends OnFakeDevice {
        @Override
        TransportConfig configure(TransportConfig config) {
            return config.sendQueueDepth(4).receiveQueueDepth(8).option("verbs.signalInterval", "64")
                    .option("verbs.maxPoll", "3");
        }
    }
}
