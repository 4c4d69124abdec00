/**
 * Rivulet over libfabric and over ibverbs directly. Applications see the options and the interop entry point; the
 * transport itself is found through {@link dev.rivulet.core.spi.TransportProvider}.
 */
module dev.rivulet.rdma {
    requires dev.rivulet.core;
    requires org.slf4j;
    requires static org.jspecify;
    requires jdk.net;

    exports dev.rivulet.rdma;

    provides dev.rivulet.core.spi.TransportProvider with dev.rivulet.rdma.fabric.FabricTransportProvider,
            dev.rivulet.rdma.verbs.VerbsTransportProvider;
}
