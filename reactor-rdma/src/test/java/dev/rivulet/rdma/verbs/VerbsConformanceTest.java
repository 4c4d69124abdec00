package dev.rivulet.rdma.verbs;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.conformance.TransportConformanceKit;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import org.junit.jupiter.api.Nested;

/**
 * The whole conformance kit over verbs, on a host with an RDMA device (InfiniBand, RoCE, or Soft-RoCE/rxe): two
 * transports of this JVM connected through the device. Elsewhere every test is skipped with the reason the provider
 * gives (no device, no library), or fails where {@code -Drivulet.require=verbs} says a device must be there.
 *
 * <p>The bootstrap host is {@code -Drivulet.verbs.host} (default 127.0.0.1: rdma_cm binds a loopback connection to a
 * local device; with several devices, or for manual connections on RoCE, give the address of the RDMA interface).
 * {@code -Drivulet.verbs.device} and {@code -Drivulet.verbs.port} pick the device port (default: the first active
 * one). See {@code docs/verbs-transport.md} for the exact commands.
 */
class VerbsConformanceTest {

    static final String HOST = System.getProperty("rivulet.verbs.host", "127.0.0.1");

    /** The kit on the configured device, with the connection kind each variant names. */
    abstract static class OnDevice extends TransportConformanceKit {

        /** Variants add their own options. */
        TransportConfig configure(TransportConfig config) {
            return config;
        }

        @Override
        protected Transport openTransport(TransportConfig config) {
            VerbsTransportProvider provider = new VerbsTransportProvider();
            Requirements.assume(provider.availability(), "verbs");
            TransportConfig c = configure(config)
                    .option("verbs.device", System.getProperty("rivulet.verbs.device", "auto"))
                    .option("verbs.port", System.getProperty("rivulet.verbs.port", "0"));
            return provider.open(c);
        }

        @Override
        protected String bindAddress(String name) {
            return VerbsAddress.uri(HOST, 0, "");
        }
    }

    /** Queue pairs connected by rdma_cm (the default). */
    @Nested
    class RdmaCm extends OnDevice {
    }

    /** Queue pairs connected by hand: numbers, LIDs and GIDs exchanged in the handshake. */
    @Nested
    class Manual extends OnDevice {
        @Override
        TransportConfig configure(TransportConfig config) {
            return config.option("verbs.connection", "manual");
        }

        @Override
        protected String bindAddress(String name) {
            return VerbsAddress.uri(HOST, 0, "connection=manual");
        }
    }

    /** A shared secret on both sides: every connection proves it before its queue pair is connected. */
    @Nested
    class Authenticated extends OnDevice {
        @Override
        TransportConfig configure(TransportConfig config) {
            return config.option("security.secret", "verbs conformance secret, 32 bytes+");
        }
    }

    /** Every request signalled and nothing inline: the plainest posting, against the selective default. */
    @Nested
    class EverySendSignalled extends OnDevice {
        @Override
        TransportConfig configure(TransportConfig config) {
            return config.option("verbs.signalInterval", "1").option("verbs.maxInline", "0");
        }
    }
}
