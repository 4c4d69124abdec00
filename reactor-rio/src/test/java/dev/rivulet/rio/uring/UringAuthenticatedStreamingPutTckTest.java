package dev.rivulet.rio.uring;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;

/** {@link UringStreamingPutTckTest} with a shared secret on both sides. */
public class UringAuthenticatedStreamingPutTckTest extends UringStreamingPutTckTest {

    @Override
    protected Transport openTransport(TransportConfig config) {
        return super.openTransport(config.option("security.secret", UringAuthenticatedConformanceTest.SECRET));
    }
}
