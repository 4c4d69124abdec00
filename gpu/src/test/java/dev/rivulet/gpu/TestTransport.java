package dev.rivulet.gpu;

import dev.rivulet.conformance.Requirements;
import dev.rivulet.core.Transport;
import dev.rivulet.core.TransportConfig;
import dev.rivulet.core.Transports;
import dev.rivulet.core.spi.Availability;
import dev.rivulet.core.spi.TransportProvider;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * A kind of transport the tests move device memory over: how to open one, and the address its server binds.
 *
 * @param opener    opens a new transport of the kind
 * @param addresses the address for each new server
 */
record TestTransport(Supplier<Transport> opener, Supplier<String> addresses) {

    private static final AtomicInteger NAMES = new AtomicInteger();

    /** The in-JVM {@code local} transport with the default configuration. */
    static final TestTransport LOCAL = local(TransportConfig.defaults());

    /**
     * libfabric's {@code tcp} provider on loopback, on a port the system picks. Where the libfabric transport cannot
     * be used, opening one skips the test that asked, with the reason.
     */
    static final TestTransport LIBFABRIC_TCP = new TestTransport(() -> {
        Requirements.assume(Transports.provider("libfabric").map(TransportProvider::availability)
                .orElse(Availability.no("no libfabric provider on the class path")), "libfabric");
        return Transports.open("libfabric", TransportConfig.defaults().option("fabric.provider", "tcp"));
    }, () -> "fabric://127.0.0.1:0?provider=tcp");

    /**
     * Rivulet's {@code shm://} between two endpoints of this process, each server at a name no other test or process
     * binds. Where it cannot be used, opening one skips the test that asked, with the reason.
     */
    static final TestTransport SHM = new TestTransport(() -> {
        Requirements.assume(Transports.provider("shm").map(TransportProvider::availability)
                .orElse(Availability.no("no shm provider on the class path")), "shm");
        return Transports.open("shm", TransportConfig.defaults());
    }, () -> "shm://gpu-test-" + ProcessHandle.current().pid() + "-" + NAMES.incrementAndGet());

    /** {@code local} with {@code config}, each server at an address no other test binds. */
    static TestTransport local(TransportConfig config) {
        return new TestTransport(() -> Transports.open("local", config),
                () -> "local://gpu-test-" + NAMES.incrementAndGet());
    }

    Transport open() {
        return opener.get();
    }

    String bindAddress() {
        return addresses.get();
    }
}
