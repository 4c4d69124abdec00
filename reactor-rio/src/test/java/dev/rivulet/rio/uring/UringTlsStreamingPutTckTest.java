package dev.rivulet.rio.uring;

import dev.rivulet.conformance.TestCertificates;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

/** {@link UringStreamingPutTckTest} with TLS 1.3 on both sides. */
public class UringTlsStreamingPutTckTest extends UringStreamingPutTckTest {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return super.openTransport(config.security(TestCertificates.settings("server")));
    }
}
