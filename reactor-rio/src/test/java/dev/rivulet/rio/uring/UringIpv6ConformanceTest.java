package dev.rivulet.rio.uring;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.conformance.TransportConformanceKit;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import org.junit.jupiter.api.BeforeAll;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The conformance kit again over IPv6 loopback ({@code uring://[::1]:0}). */
class UringIpv6ConformanceTest extends TransportConformanceKit {

    @BeforeAll
    static void requireIoUringAndIpv6() {
        Requirements.assume(new UringTransportProvider().availability(), "io_uring");
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getByName("::1"), 0));
        } catch (Exception e) {
            assumeTrue(false, "no IPv6 loopback here: " + e);
        }
    }

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new UringTransportProvider().open(config);
    }

    @Override
    protected String bindAddress(String name) {
        return "uring://[::1]:0";
    }
}
