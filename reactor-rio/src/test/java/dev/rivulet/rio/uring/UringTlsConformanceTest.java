package dev.rivulet.rio.uring;

import dev.rivulet.conformance.TestCertificates;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

/**
 * The conformance kit over io_uring with TLS 1.3 on both sides (mutual certificates from {@link TestCertificates}):
 * every frame then goes through the {@code TlsChannel} between the wire and the ring.
 */
class UringTlsConformanceTest extends UringConformanceTest {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return new UringTransportProvider().open(config.security(TestCertificates.settings("server")));
    }
}
