package dev.rivulet.spring.messaging;

import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;

/** {@code @MessageMapping} over the in-JVM transport. */
class MessageMappingOverLocalTest extends AbstractMessageMappingTest {

    @Override
    Transport openTransport() {
        return Transports.open("local", TransportConfig.defaults());
    }

    @Override
    String bindAddress() {
        return "local://spring-" + SERVERS.incrementAndGet();
    }
}
