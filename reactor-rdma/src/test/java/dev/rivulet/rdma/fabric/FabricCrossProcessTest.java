package dev.rivulet.rdma.fabric;

import dev.rivulet.conformance.CrossProcessKit;
import dev.rivulet.core.spi.TransportProvider;
import org.junit.jupiter.api.Nested;

import java.util.Map;

/** The two-process part of the conformance kit on each loopback provider, each its own run. */
class FabricCrossProcessTest {

    abstract static class OnProvider extends CrossProcessKit {
        abstract String name();

        @Override
        protected TransportProvider provider() {
            return new FabricTransportProvider();
        }

        @Override
        protected Map<String, String> options() {
            return Map.of("fabric.provider", name());
        }

        @Override
        protected String peerBindAddress() {
            return "fabric://127.0.0.1:0?provider=" + name();
        }
    }

    @Nested
    class Tcp extends OnProvider {
        @Override
        String name() {
            return "tcp";
        }
    }

    /** Both processes with the same shared secret, proved in every connection's handshake. */
    @Nested
    class TcpAuthenticated extends OnProvider {
        @Override
        String name() {
            return "tcp";
        }

        @Override
        protected Map<String, String> options() {
            return Map.of("fabric.provider", "tcp", "security.secret", FabricSecurityTest.SECRET);
        }
    }

    /** Both processes with TLS on the bootstrap connection, configured as options (as a process reads them). */
    @Nested
    class TcpTls extends OnProvider {
        @Override
        String name() {
            return "tcp";
        }

        @Override
        protected Map<String, String> options() {
            Map<String, String> o = new java.util.HashMap<>(dev.rivulet.conformance.TestCertificates.options("server"));
            o.put("fabric.provider", "tcp");
            return o;
        }
    }

    @Nested
    class Sockets extends OnProvider {
        @Override
        String name() {
            return "sockets";
        }
    }

    @Nested
    class Shm extends OnProvider {
        @Override
        String name() {
            return "shm";
        }
    }
}
