/**
 * Rivulet over io_uring (Linux) and Registered I/O (Windows). Applications see the options; the transports are
 * found through {@link dev.rivulet.core.spi.TransportProvider}.
 */
module dev.rivulet.rio {
    requires dev.rivulet.core;
    requires org.slf4j;
    requires static org.jspecify;
    requires jdk.net;

    exports dev.rivulet.rio;

    provides dev.rivulet.core.spi.TransportProvider with dev.rivulet.rio.uring.UringTransportProvider,
            dev.rivulet.rio.windows.RioTransportProvider, dev.rivulet.rio.shm.ShmTransportProvider;
}
