/**
 * Rivulet's API and engine. Applications use the API packages ({@code dev.rivulet.core}, {@code .memory},
 * {@code .error}, ...); transports, Rivulet's own and third parties', build on the incubating transport SPI (the
 * engine, the progress loops, connection set-up, admission, framing and meters, marked
 * {@link dev.rivulet.core.spi.Incubating}); the internal accessors are exported only to Rivulet's own modules.
 */
module dev.rivulet.core {
    requires transitive reactor.core;
    requires transitive org.reactivestreams;
    requires transitive micrometer.core;
    requires transitive micrometer.observation;
    requires org.slf4j;
    requires org.jctools.core;
    requires reactor.pool;
    requires static org.jspecify;

    exports dev.rivulet.core;
    exports dev.rivulet.core.error;
    exports dev.rivulet.core.interaction;
    exports dev.rivulet.core.liveness;
    exports dev.rivulet.core.local;
    exports dev.rivulet.core.memory;
    exports dev.rivulet.core.progress;
    exports dev.rivulet.core.resume;
    exports dev.rivulet.core.security;
    exports dev.rivulet.core.spi;

    // The transport SPI ("wire kit"), incubating: what a transport of another module builds on. Each package says
    // so in its package-info; see docs/writing-a-transport.md.
    exports dev.rivulet.core.admission;
    exports dev.rivulet.core.credit;
    exports dev.rivulet.core.engine;
    exports dev.rivulet.core.engine.wire;
    exports dev.rivulet.core.handshake;
    exports dev.rivulet.core.loop;
    exports dev.rivulet.core.metrics;
    exports dev.rivulet.core.remote;

    // The accessors to the API types' package-private operations stay Rivulet's own: third-party transports reach
    // what they need of them through dev.rivulet.core.engine.WireMemory.
    exports dev.rivulet.core.internal to dev.rivulet.rdma, dev.rivulet.rio, dev.rivulet.gpu;
    exports dev.rivulet.core.sys to dev.rivulet.rdma, dev.rivulet.rio, dev.rivulet.gpu;

    uses dev.rivulet.core.spi.TransportProvider;
    provides dev.rivulet.core.spi.TransportProvider with dev.rivulet.core.local.LocalTransportProvider;
}
