package dev.rivulet.rio.uring;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

/**
 * The conformance kit again with every staged write sent with SEND_ZC ({@code uring.zeroCopyMinBytes=0}, and
 * {@code uring.zeroCopyLoopback} since the kit runs over loopback): by default only large staged writes to another
 * host use it, so this keeps the two-completion path (result, then buffer-free notification) under the whole kit.
 */
class UringZeroCopyConformanceTest extends UringConformanceTest {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new UringTransportProvider().open(config.option("uring.zeroCopyMinBytes", "0")
                .option("uring.zeroCopyLoopback", "true"));
    }
}
