/**
 * Rivulet's API and engine. Applications use the exported packages; the engine, the progress loops, the connection
 * handshake and the internal accessors are exported only to Rivulet's own backend modules.
 */
module dev.rivulet.core {
    requires transitive reactor.core;
    requires transitive org.reactivestreams;
    requires transitive micrometer.core;
    requires org.slf4j;
    requires org.jctools.core;
    requires static org.jspecify;

    exports dev.rivulet.core;
    exports dev.rivulet.core.error;
    exports dev.rivulet.core.liveness;
    exports dev.rivulet.core.local;
    exports dev.rivulet.core.memory;
    exports dev.rivulet.core.progress;
    exports dev.rivulet.core.security;
    exports dev.rivulet.core.spi;

    exports dev.rivulet.core.admission to dev.rivulet.rdma, dev.rivulet.rio;
    exports dev.rivulet.core.engine to dev.rivulet.rdma, dev.rivulet.rio, dev.rivulet.gpu;
    exports dev.rivulet.core.framing to dev.rivulet.rdma, dev.rivulet.rio;
    exports dev.rivulet.core.handshake to dev.rivulet.rdma, dev.rivulet.rio;
    exports dev.rivulet.core.internal to dev.rivulet.rdma, dev.rivulet.rio, dev.rivulet.gpu;
    exports dev.rivulet.core.loop to dev.rivulet.rdma, dev.rivulet.rio, dev.rivulet.gpu;
    exports dev.rivulet.core.metrics to dev.rivulet.rdma, dev.rivulet.rio, dev.rivulet.gpu;
    exports dev.rivulet.core.sys to dev.rivulet.rdma, dev.rivulet.rio, dev.rivulet.gpu;

    uses dev.rivulet.core.spi.TransportProvider;
    provides dev.rivulet.core.spi.TransportProvider with dev.rivulet.core.local.LocalTransportProvider;
}
