package dev.rivulet.spring.messaging;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;

/** {@code @MessageMapping} over io_uring on the loopback interface: payloads through a real socket. */
class MessageMappingOverIoUringTest extends AbstractMessageMappingTest {

    @Override
    Transport openTransport() {
        Requirements.assume(Transports.provider("io_uring").orElseThrow().availability(), "io_uring");
        return Transports.open("io_uring", TransportConfig.defaults());
    }

    @Override
    String bindAddress() {
        return "uring://127.0.0.1:0";
    }
}
