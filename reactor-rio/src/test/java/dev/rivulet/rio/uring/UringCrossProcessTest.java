package dev.rivulet.rio.uring;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.conformance.CrossProcessKit;
import dev.rivulet.core.spi.TransportProvider;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Map;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The two-process part of the conformance kit over io_uring, on IPv4 and IPv6 loopback, and on IPv4 with a shared
 * secret and with TLS.
 */
class UringCrossProcessTest {

    @BeforeAll
    static void requireIoUring() {
        Requirements.assume(new UringTransportProvider().availability(), "io_uring");
    }

    abstract static class OnLoopback extends CrossProcessKit {
        @Override
        protected TransportProvider provider() {
            return new UringTransportProvider();
        }
    }

    @Nested
    class Ipv4 extends OnLoopback {
        @Override
        protected String peerBindAddress() {
            return "uring://127.0.0.1:0";
        }
    }

    /** Both processes prove the same shared secret on every connection. */
    @Nested
    class AuthenticatedIpv4 extends OnLoopback {
        @Override
        protected Map<String, String> options() {
            return Map.of("security.secret", UringAuthenticatedConformanceTest.SECRET);
        }

        @Override
        protected String peerBindAddress() {
            return "uring://127.0.0.1:0";
        }
    }

    /** Both processes over TLS with mutual certificates, configured as options (as a process reads them). */
    @Nested
    class TlsIpv4 extends OnLoopback {
        @Override
        protected Map<String, String> options() {
            return dev.rivulet.conformance.TestCertificates.options("server");
        }

        @Override
        protected String peerBindAddress() {
            return "uring://127.0.0.1:0";
        }
    }

    @Nested
    class Ipv6 extends OnLoopback {
        @BeforeAll
        static void requireIpv6() {
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(InetAddress.getByName("::1"), 0));
            } catch (Exception e) {
                assumeTrue(false, "no IPv6 loopback here: " + e);
            }
        }

        @Override
        protected String peerBindAddress() {
            return "uring://[::1]:0";
        }
    }
}
